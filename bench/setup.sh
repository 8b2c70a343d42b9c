#!/usr/bin/env bash
# Installs what the benchmark harness needs on top of scripts/setup.sh:
# Debian's OpenBLAS (the matmul reference) and bench/requirements.txt (the
# peers: jax, IREE, TVM; OpenVINO from requirements-nodeps.txt) in the
# project's venv, or the one TANDEM_VENV names. Idempotent: a second run
# installs nothing.
#
#   bash bench/setup.sh
#   TANDEM_SKIP_APT=1 ...   skip apt (packages managed elsewhere)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TANDEM_VENV:-$ROOT/.venv}"
log() { printf '[bench-setup] %s\n' "$*"; }

bash "$ROOT/scripts/setup.sh"

APT_PACKAGES=(libopenblas-dev binutils)
if [ "${TANDEM_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    log "installing: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    log "apt packages present"
  fi
fi

stamp="$VENV/.tandem-bench-requirements"
want="$(cat "$ROOT/bench/requirements.txt" "$ROOT/bench/requirements-nodeps.txt" "$ROOT/scripts/requirements-test.txt")"
if [ "$want" != "$(cat "$stamp" 2>/dev/null)" ]; then
  log "installing bench/requirements.txt into $VENV"
  # python -m pip, not bin/pip: a venv that was moved or copied keeps the
  # old path in bin/pip's #! line, and would install into that one.
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$ROOT/bench/requirements.txt"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$ROOT/bench/requirements-nodeps.txt"
  printf '%s' "$want" > "$stamp"
else
  log "venv up to date"
fi
