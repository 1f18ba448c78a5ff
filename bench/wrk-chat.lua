-- wrk script for bench/ceiling.sh: POST one chat completion (streamed with STREAMING=1)
-- (16 output tokens, ignore_eos) per request, as aiperf sends them.
local osl = os.getenv("OSL") or "16"
-- STREAMING=1 asks for a streamed (SSE) answer, as aiperf --streaming does.
local stream = os.getenv("STREAMING") == "1" and ',"stream":true' or ""
wrk.method = "POST"
wrk.path = "/v1/chat/completions"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"mock-model","messages":[{"role":"user","content":"one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"}],"max_tokens":' .. osl .. ',"ignore_eos":true' .. stream .. '}'
