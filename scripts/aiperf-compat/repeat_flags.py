"""Which of AIPerf's `profile` flags may be given twice.

Reads profile_flags.json (help group -> flags, each a list of spellings) on
stdin and prints, as a JSON list, the first spelling of every flag that
AIPerf's command-line parser accepts twice (its list flags, which append).
Every other flag given twice is refused with cyclopts' RepeatArgumentError.
Run with the python of a venv holding aiperf.
"""
import json
import sys

from cyclopts.exceptions import RepeatArgumentError

from aiperf.cli_commands.profile import app

REQUIRED = {"--model-names": ["--model-names", "m"], "--url": ["--url", "localhost:1"]}


def refused(args):
    """True if parsing args raises RepeatArgumentError; None if parsing
    fails for another reason (a value the flag does not take)."""
    try:
        app.parse_args(args, exit_on_error=False, print_error=False)
    except RepeatArgumentError:
        return True
    except Exception:
        return None
    return False


def main():
    groups = json.load(sys.stdin)
    repeatable = []
    for flags in groups.values():
        for spellings in flags:
            name = spellings[0]
            if not name.startswith("--"):
                continue
            base = [a for k, v in REQUIRED.items() if k != name for a in v]
            verdict = None
            for value in ([], ["1"], ["a:1"], ["x"]):
                verdict = refused(base + [name, *value, name, *value])
                if verdict is not None:
                    break
            if verdict is None:
                sys.exit(f"{name}: no value parses; cannot tell")
            if not verdict:
                repeatable.append(name)
    json.dump(sorted(repeatable), sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
