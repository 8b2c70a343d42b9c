#!/usr/bin/env bash
# interrupt.sh TANDEM_RUN DIR SIGNAL: starts TANDEM_RUN on a .onnx model with
# a tandemc that hangs (fake-tandemc.sh) and temporaries under DIR/tmp,
# sends it SIGNAL once the compile has started, and prints tandem-run's
# stderr, its exit status and what is left under DIR/tmp.
set -u
tandem_run=$1 dir=$2 sig=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir/tmp"
: > "$dir/model.onnx"
TMPDIR="$dir/tmp" FAKE_TANDEMC_MARK="$dir/started" \
  "$tandem_run" "$dir/model.onnx" --tandemc "$here/fake-tandemc.sh" --random \
  2> "$dir/stderr.txt" &
pid=$!
for _ in $(seq 200); do
  [ -e "$dir/started" ] && break
  sleep 0.05
done
kill -s "$sig" "$pid"
wait "$pid"
status=$?
cat "$dir/stderr.txt"
echo "exit $status"
echo "left in tmp: $(find "$dir/tmp" -mindepth 1 | wc -l)"
