#!/usr/bin/env bash
# A stand-in for tandemc that never finishes: it writes part of its -o file,
# marks that it has started (the file $FAKE_TANDEMC_MARK), and sleeps, so
# that interrupt.test can signal tandem-run in the middle of a compile.
out=
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then out=$2; shift; fi
  shift
done
printf 'partial' > "$out"
: > "$FAKE_TANDEMC_MARK"
exec sleep 60
