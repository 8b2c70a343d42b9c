#!/usr/bin/env bash
# Tandem's CPU benchmark: installs what is missing (bench/setup.sh), then
# runs bench/run.py with the project's venv. run.py builds Tandem if needed
# and holds /tmp/tandem-build.lock from the build to the last timing, so do
# not wrap this in flock yourself (or pass --no-lock if you do).
#
#   bash bench/run.sh                 the recorded figures (30 runs a cell)
#   bash bench/run.sh --quick         10 runs a cell, a quick look
#   bash bench/run.sh --threads 1,2 --models matmul_1024,resnet18
#   bash bench/run.sh --help          every option
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
bash bench/setup.sh >&2
exec "${TANDEM_VENV:-$ROOT/.venv}/bin/python" bench/run.py "$@"
