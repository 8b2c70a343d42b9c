#!/usr/bin/env bash
# Installs everything Tandem needs on a fresh Debian 12 machine. Idempotent: a
# second run installs nothing and finishes in seconds.
#
#   scripts/setup.sh            apt packages + the Python test venv
#   TANDEM_SKIP_APT=1 ...       skip apt (packages managed elsewhere)
#   TANDEM_SKIP_VENV=1 ...      skip the Python virtual environment
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TANDEM_VENV:-$ROOT/.venv}"

APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libfmt-dev libcli11-dev googletest libonnx-dev libprotobuf-dev
  protobuf-compiler ninja-build ccache lld cmake g++ python3-venv python3-psutil
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libcurl4-openssl-dev
  # CPU torch/torchvision export the integration-test models
  # (test/models); they run under /usr/bin/python3 with Debian's numpy 1.x.
  python3-torch python3-torchvision
  # clang builds the libFuzzer target (scripts/fuzz.sh)
  clang-22 libclang-rt-22-dev
  # scripts/gpu-check prepare packs the staged models with xz
  xz-utils
)

log() { printf '[setup] %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

if [ "${TANDEM_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    log "apt packages present"
  fi
fi

if [ "${TANDEM_SKIP_VENV:-0}" != 1 ]; then
  PY=/usr/bin/python3
  [ -x "$PY" ] || PY="$(command -v python3)"
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating venv $VENV"
    "$PY" -m venv "$VENV"
  fi
  stamp="$VENV/.tandem-requirements"
  if ! cmp -s "$ROOT/scripts/requirements-test.txt" "$stamp" 2>/dev/null; then
    log "installing Python test tooling into $VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$ROOT/scripts/requirements-test.txt"
    cp "$ROOT/scripts/requirements-test.txt" "$stamp"
  else
    log "venv up to date"
  fi
  # timm and transformers for Debian's torch (the hub-models tests).
  hub_stamp="$VENV/hub-pydeps/.tandem-requirements"
  if ! cmp -s "$ROOT/scripts/requirements-hub.txt" "$hub_stamp" 2>/dev/null; then
    log "installing timm and transformers into $VENV/hub-pydeps"
    rm -rf "$VENV/hub-pydeps"
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps \
      --only-binary=:all: --target "$VENV/hub-pydeps" \
      -r "$ROOT/scripts/requirements-hub.txt"
    cp "$ROOT/scripts/requirements-hub.txt" "$hub_stamp"
  fi
fi

if [ -x /usr/local/cuda/bin/ptxas ]; then
  log "CUDA toolkit found under /usr/local/cuda"
else
  log "no CUDA toolkit under /usr/local/cuda: GPU code will be built without CUDA checks"
fi
