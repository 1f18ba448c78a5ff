# Regenerates reference.json: AIPerf 0.13's agentic_replay schedules, computed
# by AIPerf's own code (TrajectorySource and AgenticReplayStrategy), so the Go
# tests need no Python. Run with AIPerf's interpreter:
#
#   /work/aip/bin/python internal/timing/testdata/agentic/gen_reference.py \
#       > internal/timing/testdata/agentic/reference.json
#
# Each case is a small trace dataset and a configuration. The output holds
# the sampled trajectories (t*, the live streams and their offsets) and, for
# the simulated cases, every request dispatch of the warmup and profiling
# phases: AIPerf's strategy runs on an asyncio loop with a virtual clock,
# against a fake server that answers every request after a service time
# (service_s plus 10.1 ms per conversation index and 3.7 ms per turn index,
# so that no two events coincide), so the dispatch times are exact
# functions of AIPerf's definitions.
import asyncio
import json
import selectors
import sys
import types

from aiperf.common.enums import CacheBustTarget, ConversationBranchMode, CreditPhase, PrerequisiteKind
from aiperf.common.loop_scheduler import LoopScheduler
from aiperf.common.models import ConversationMetadata, DatasetMetadata, TurnMetadata
from aiperf.common.models.branch import ConversationBranchInfo
from aiperf.common.models.prerequisites import TurnPrerequisite
from aiperf.credit.structs import Credit
from aiperf.dataset.dataset_samplers import SequentialSampler
from aiperf.timing.strategies import agentic_replay as ar
from aiperf.credit.structs import TurnToSend
from aiperf.timing.branch_orchestrator import BranchOrchestrator
from aiperf.timing.session_tree import SessionTreeRegistry
from aiperf.timing.trajectory_source import TrajectorySource


class _VirtualSelector(selectors.SelectSelector):
    """select() advances the loop's virtual clock instead of sleeping."""

    def __init__(self):
        super().__init__()
        self.loop = None

    def select(self, timeout=None):
        if timeout is None:
            raise RuntimeError("simulation stalled: nothing scheduled")
        if timeout > 0:
            self.loop.vt += timeout
        return []


class _VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self):
        sel = _VirtualSelector()
        super().__init__(selector=sel)
        sel.loop = self
        self.vt = 0.0
        self._clock_resolution = 1e-12

    def time(self):
        return self.vt


def _dataset(spec):
    """DatasetMetadata for a case. A subagent names its parent and its
    SPAWN branch: the parent turn that spawns it, the turn that joins it
    (None: background) and the branch's recorded start."""
    turns_of = {
        c["id"]: [
            TurnMetadata(timestamp_ms=t.get("ts"), delay_ms=t.get("delay"), api_time_ms=t.get("api"))
            for t in c["turns"]
        ]
        for c in spec
    }
    branches = {}
    for c in spec:
        b = c.get("branch")
        if b is None:
            continue
        parent = turns_of[c["parent"]]
        if b["id"] not in branches.setdefault(c["parent"], {}):
            branches[c["parent"]][b["id"]] = ConversationBranchInfo(
                branch_id=b["id"], child_conversation_ids=[], mode=ConversationBranchMode.SPAWN,
                is_background=b.get("join") is None, start_timestamp_ms=b.get("start"),
            )
            parent[b["spawn"]].branch_ids.append(b["id"])
            if b.get("join") is not None:
                parent[b["join"]].prerequisites.append(
                    TurnPrerequisite(kind=PrerequisiteKind.SPAWN_JOIN, branch_id=b["id"])
                )
        branches[c["parent"]][b["id"]].child_conversation_ids.append(c["id"])
    convs = []
    for c in spec:
        child = c.get("parent") is not None
        convs.append(ConversationMetadata(
            conversation_id=c["id"], turns=turns_of[c["id"]],
            branches=list(branches.get(c["id"], {}).values()),
            is_root=not child, agent_depth=1 if child else 0,
            parent_conversation_id=c.get("parent"),
        ))
    return DatasetMetadata(conversations=convs, sampling_strategy="sequential")


def _source(case):
    md = _dataset(case["dataset"])
    return TrajectorySource(
        dataset_metadata=md,
        dataset_sampler=SequentialSampler([c["id"] for c in case["dataset"] if c.get("parent") is None]),
        concurrency=case["concurrency"],
        random_seed=case["seed"],
        start_min_ratio=case["min"],
        start_max_ratio=case["max"],
        allow_dataset_wrap=True,
    )


def _trajectories(src):
    out = []
    for t in src.trajectories:
        row = {"root": t.conversation_id, "start_turn": t.start_turn_index}
        if t.snapshot is not None:
            row["t_star_ms"] = t.snapshot.t_star_ms
            row["states"] = [
                {"conv": s.conversation_id, "next": s.next_turn_index, "offset_ms": s.next_dispatch_offset_ms,
                 "waiting": s.waiting_on_children}
                for s in t.snapshot.states
            ]
        out.append(row)
    return out


class _Gate:
    def seed_completed_prefixes(self, *a): pass
    def activate(self): pass
    def complete(self, credit): pass
    def pause_releases(self): pass
    def completed_prefixes(self, root): return ()
    def close_root(self, root): pass
    def pending_turns_by_root(self): return {}


class _Slots:
    """The concurrency manager as the session-tree registry sees it: every
    lane holds its one session slot, so nothing ever waits for one."""

    def release_session_slot(self, phase):
        pass


class _Sim:
    """One run: the warmup phase, then the profiling phase, both with
    AIPerf's strategy, against a server with a fixed service time."""

    def __init__(self, case):
        self.case = case
        self.loop = _VirtualLoop()
        asyncio.set_event_loop(self.loop)
        self.in_flight = 0
        self.dispatches = []
        self.phase = None
        self.strategy = None
        self.sending_complete = False
        self.seq = 0
        self.deadline = None  # the profiling phase's end (its duration)
        self.processing = 0  # returns whose handling has not finished
        self.registry = SessionTreeRegistry(_Slots())  # shared by both phases
        # The strategy reads the clock through its module's `time`.
        ar.time = types.SimpleNamespace(
            monotonic=lambda: self.loop.vt,
            perf_counter_ns=lambda: int(round(self.loop.vt * 1e9)),
        )

    # --- the collaborators the strategy calls -------------------------------
    def _run(self):
        phase = types.SimpleNamespace(
            burst_phase_starts=self.case.get("burst", False),
            system_idle_gap_cap_seconds=self.case.get("system_cap"),
        )
        dataset = types.SimpleNamespace(trace_idle_gap_cap_seconds=self.case.get("trace_cap"))
        cfg = types.SimpleNamespace(
            get_profiling_phases=lambda: [phase],
            get_default_dataset=lambda: dataset,
            get_cache_bust_target=lambda: CacheBustTarget.NONE,
        )
        return types.SimpleNamespace(cfg=cfg, benchmark_id="bench")

    async def issue_credit(self, turn):
        if self.sending_complete or (self.deadline is not None and self.loop.vt >= self.deadline):
            return False
        credit = Credit(
            id=self.seq,
            phase=self.phase,
            conversation_id=turn.conversation_id,
            x_correlation_id=turn.x_correlation_id,
            turn_index=turn.turn_index,
            num_turns=turn.num_turns,
            issued_at_ns=0,
            agent_depth=turn.agent_depth,
            root_correlation_id=turn.root_correlation_id,
            max_tokens_override=turn.max_tokens_override if turn.max_tokens_override is not None else self.max_tokens,
        )
        self.seq += 1
        if turn.agent_depth == 0 and (turn.turn_index == 0 or turn.is_session_start) and self._trees_engaged():
            self.registry.open_tree(turn.effective_root_correlation_id, self.phase, root_pending=True)
        lane = self.strategy._correlation_to_lane.get(turn.x_correlation_id)
        if lane is None:
            lane = self.strategy._correlation_to_lane.get(turn.effective_root_correlation_id)
        self.dispatches.append({
            "phase": "warmup" if self.phase == CreditPhase.WARMUP else "profiling",
            "t": self.loop.vt,
            "lane": lane,
            "conv": turn.conversation_id,
            "turn": turn.turn_index,
            "max_tokens_1": credit.max_tokens_override == 1,
        })
        self.in_flight += 1
        self.loop.call_later(self.service(turn), self._returned, credit)
        return True

    def _returned(self, credit):
        self.processing += 1
        self.loop.create_task(self._on_return(credit))

    async def _on_return(self, credit):
        # Each return is counted and handled as one step (AIPerf's credit
        # callback decrements in_flight and dispatches in one coroutine).
        self.in_flight -= 1
        try:
            await self._process_return(credit)
        finally:
            self.processing -= 1

    async def _process_return(self, credit):
        # AIPerf's CreditCallbackHandler.on_credit_return, in its order.
        s, orch = self.strategy, self.orch
        if credit.is_final_turn and credit.agent_depth > 0:
            await orch.on_child_leaf_reached(credit.x_correlation_id)
        s.observe_credit_return(credit)
        if await orch.intercept(credit):
            s.enforce_system_idle_cap(self.in_flight)
            return
        if credit.agent_depth == 0 and credit.is_final_turn and self._trees_engaged():
            self.registry.on_root_terminal(credit.effective_root_correlation_id)
        if credit.agent_depth > 0 or not self.sending_complete or s.wants_returns_after_sending_complete:
            await s.handle_credit_return(credit)
        s.enforce_system_idle_cap(self.in_flight)

    def _trees_engaged(self):
        return self.phase == CreditPhase.PROFILING or self.case.get("cache_warmup") is not None

    def service(self, turn):
        """The fake server's latency: service_s plus a little per
        conversation and turn, so that no two returns coincide."""
        ci = [c["id"] for c in self.case["dataset"]].index(turn.conversation_id)
        return self.case["service_s"] + 0.0101 * ci + 0.0037 * turn.turn_index

    def set_max_tokens_override(self, v):
        self.max_tokens = v

    def signal_sending_complete(self):
        self.sending_complete = True

    def mark_sending_complete(self):
        self.sending_complete = True

    async def acquire_lane_credit(self, root_correlation_id, *, root_pending, session_turns=0):
        if self._trees_engaged() and root_correlation_id is not None:
            self.registry.open_tree(root_correlation_id, self.phase, root_pending=root_pending)
        return True

    async def dispatch_child_turn(self, turn):
        return await self.issue_credit(turn)

    async def dispatch_first_turn(self, session):
        return await self.issue_credit(session.build_first_turn())

    async def dispatch_join_turn(self, pending):
        return await self.issue_credit(TurnToSend(
            conversation_id=pending.parent_conversation_id,
            x_correlation_id=pending.parent_x_correlation_id,
            turn_index=pending.gated_turn_index,
            num_turns=pending.parent_num_turns,
            agent_depth=pending.parent_agent_depth,
            parent_correlation_id=pending.parent_parent_correlation_id,
        ))

    async def abort_session(self, x_correlation_id):
        pass

    def can_start_new_session(self):
        return self.deadline is None or self.loop.vt < self.deadline

    # --- running the phases ------------------------------------------------
    def _strategy(self, phase, src):
        self.phase = phase
        self.sending_complete = False
        self.max_tokens = None
        self.replay_gate = _Gate()
        self.lifecycle = types.SimpleNamespace(
            is_sending_complete=False, mark_sending_complete=self.mark_sending_complete
        )
        config = types.SimpleNamespace(
            phase=phase,
            agentic_cache_warmup_duration_sec=self.case.get("cache_warmup") if phase == CreditPhase.WARMUP else None,
        )
        sched = LoopScheduler(self.loop)
        self.scheduler = sched
        self.orch = BranchOrchestrator(
            conversation_source=src, credit_issuer=self, benchmark_id="bench",
            session_tree_registry=self.registry, cache_bust_ledger=src.cache_bust_ledger,
            allow_accelerated_warmup=self.case.get("cache_warmup") is not None,
        )
        self.strategy = ar.AgenticReplayStrategy(
            config=config,
            conversation_source=src,
            scheduler=sched,
            stop_checker=self,
            credit_issuer=self,
            lifecycle=self.lifecycle,
            run=self._run(),
            session_tree_registry=self.registry,
            branch_orchestrator=self.orch,
            progress=self,
        )
        return sched

    async def _drain(self, sched, until=None):
        while True:
            await asyncio.sleep(0)
            quiet = self.in_flight == 0 and self.processing == 0
            idle = quiet and not sched._handles and not sched._tasks
            if until is not None:
                if self.loop.vt >= until and quiet:
                    return
            elif idle:
                return
            nxt = [h.when() for h, _ in sched._handles.values()]
            nxt += [h.when() for h in self.loop._scheduled if not h.cancelled()]
            if not nxt and quiet and until is None:
                return
            await asyncio.sleep(0 if not nxt else max(0.0, min(nxt) - self.loop.vt))

    async def main(self):
        src = _source(self.case)
        self.trajectories = _trajectories(src)
        sched = self._strategy(CreditPhase.WARMUP, src)
        await self.strategy.setup_phase()
        await self.strategy.execute_phase()
        await self._drain(sched)
        await self.strategy.finalize_phase()
        sched.cancel_all()
        self.registry.release_all(CreditPhase.WARMUP)  # the warmup's teardown
        self.handoff = _trajectories(src) if self.case.get("cache_warmup") else None
        self.warmup_end = self.loop.vt
        self.deadline = self.warmup_end + self.case["duration_s"]
        sched = self._strategy(CreditPhase.PROFILING, src)
        await self.strategy.setup_phase()
        await self.strategy.execute_phase()
        await self._drain(sched, until=self.deadline)
        sched.cancel_all()


def _round(x):
    return round(x, 9)


def run_case(case):
    out = {"case": case}
    if case.get("simulate"):
        sim = _Sim(case)
        sim.loop.run_until_complete(sim.main())
        out["trajectories"] = sim.trajectories
        if sim.handoff is not None:
            out["handoff"] = sim.handoff
        out["warmup_end_s"] = _round(sim.warmup_end)
        for d in sim.dispatches:
            d["t"] = _round(d["t"])
        out["dispatches"] = sim.dispatches
    else:
        out["trajectories"] = _trajectories(_source(case))
    return out


def _turns(ts, delays, api=None):
    out = []
    for i, t in enumerate(ts):
        row = {"ts": t}
        if delays is not None and i > 0:
            row["delay"] = delays[i - 1]
        if api is not None:
            row["api"] = api[i]
        out.append(row)
    return out


ROOTS = [
    {"id": "r0", "turns": _turns([0, 1000, 5000, 6000, 20000, 21000], [500, 3000, 800, 12000, 700])},
    {"id": "r1", "turns": _turns([100, 30000, 31000, 60000, 60500], [29000, 900, 28000, 300])},
    {"id": "r2", "turns": _turns([0, 200, 400, 600, 800, 1000, 1200, 1400], [100] * 7)},
]

UNTIMED = [
    {"id": "u0", "turns": [{"delay": None}] + [{"delay": 250}] * 9},
    {"id": "u1", "turns": [{"delay": None}, {"delay": 400}]},
    {"id": "u2", "turns": [{"delay": None}] + [{"delay": 100}] * 4},
]

# A root whose turn 1 spawns subagent x, joined at turn 2, and whose turn 2
# spawns subagent y in the background; and a root without subagents.
AGENTS = [
    {"id": "a0", "turns": _turns([0, 2000, 10000, 12000, 30000], [1000, 7000, 1500, 17000])},
    {"id": "a0::sa:x", "parent": "a0", "branch": {"id": "a0:spawn:x", "spawn": 1, "join": 2, "start": 2100},
     "turns": _turns([2500, 4000, 8000], [1200, 3500])},
    {"id": "a0::sa:y", "parent": "a0", "branch": {"id": "a0:spawn:y", "spawn": 2, "join": None, "start": 10500},
     "turns": _turns([11000, 20000, 40000], [8000, 19000])},
    {"id": "b0", "turns": _turns([0, 1000, 3000, 6000], [800, 1500, 2500])},
]

CASES = [
    {"name": "sample_subagents", "dataset": AGENTS, "concurrency": 16, "seed": 11, "min": 0.0, "max": 1.0},
    {"name": "sample_subagents_narrow", "dataset": AGENTS, "concurrency": 8, "seed": 4, "min": 0.04, "max": 0.09},
    {"name": "sample_default_ratios", "dataset": ROOTS, "concurrency": 6, "seed": 42, "min": 0.25, "max": 0.75},
    {"name": "sample_full_range", "dataset": ROOTS, "concurrency": 5, "seed": 7, "min": 0.0, "max": 1.0},
    {"name": "sample_fixed_point", "dataset": ROOTS, "concurrency": 3, "seed": 1, "min": 0.5, "max": 0.5},
    {"name": "sample_untimed", "dataset": UNTIMED, "concurrency": 6, "seed": 42, "min": 0.25, "max": 0.75},
    {"name": "spread", "dataset": ROOTS, "concurrency": 3, "seed": 42, "min": 0.25, "max": 0.75,
     "simulate": True, "service_s": 0.25, "duration_s": 40.0},
    {"name": "burst", "dataset": ROOTS, "concurrency": 3, "seed": 42, "min": 0.25, "max": 0.75, "burst": True,
     "simulate": True, "service_s": 0.25, "duration_s": 40.0},
    {"name": "trace_idle_cap", "dataset": ROOTS, "concurrency": 3, "seed": 42, "min": 0.25, "max": 0.75,
     "trace_cap": 2.0, "simulate": True, "service_s": 0.25, "duration_s": 40.0},
    {"name": "system_idle_cap", "dataset": ROOTS, "concurrency": 2, "seed": 3, "min": 0.0, "max": 1.0,
     "system_cap": 1.5, "simulate": True, "service_s": 0.25, "duration_s": 40.0},
    {"name": "system_idle_cap_burst", "dataset": ROOTS, "concurrency": 3, "seed": 9, "min": 0.25, "max": 0.75,
     "system_cap": 0.5, "burst": True, "simulate": True, "service_s": 0.3, "duration_s": 30.0},
    {"name": "cache_warmup", "dataset": ROOTS, "concurrency": 3, "seed": 42, "min": 0.25, "max": 0.75,
     "cache_warmup": 2.1, "simulate": True, "service_s": 0.25, "duration_s": 30.0},
    {"name": "subagents", "dataset": AGENTS, "concurrency": 4, "seed": 11, "min": 0.0, "max": 1.0,
     "simulate": True, "service_s": 0.25, "duration_s": 60.0},
    {"name": "subagents_joins", "dataset": AGENTS, "concurrency": 4, "seed": 4, "min": 0.04, "max": 0.09,
     "simulate": True, "service_s": 0.3, "duration_s": 60.0},
    {"name": "subagents_burst_idle_cap", "dataset": AGENTS, "concurrency": 2, "seed": 4, "min": 0.04, "max": 0.09,
     "burst": True, "system_cap": 1.0, "trace_cap": 3.0, "simulate": True, "service_s": 0.3, "duration_s": 60.0},
    {"name": "subagents_cache_warmup", "dataset": AGENTS, "concurrency": 4, "seed": 11, "min": 0.0, "max": 1.0,
     "cache_warmup": 1.7, "simulate": True, "service_s": 0.25, "duration_s": 40.0},
    {"name": "untimed", "dataset": UNTIMED, "concurrency": 3, "seed": 5, "min": 0.25, "max": 0.75,
     "simulate": True, "service_s": 0.2, "duration_s": 10.0},
]


def main():
    json.dump({"aiperf": "0.13.0", "cases": [run_case(c) for c in CASES]}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
