#!/usr/bin/env python3
"""Stress test of -tandem-fuse on random graphs.

usage: random_graphs.py TANDEM_OPT WORKDIR [COUNT]

Generates COUNT random tandem functions (elementwise, matmul, reductions,
softmax, transposes, concat/slice, small constants, CPU/GPU placements) with
a fixed seed per graph, fuses each under several option sets and checks that
the pass succeeds, that the result verifies (tandem-opt verifies after the
pass: no cycles, no dangling values), and that every op except constants sits
in a fusion. Prints "random-graphs: N passed, M failed".
"""
import os
import random
import re
import subprocess
import sys

OPTION_SETS = [
    "",
    "max-ops=3",
    "max-ops=4 max-operands=4",
    "disable-fusion=multi_output",
    "disable-fusion=output,input max-duplicate-input-bytes=1000000",
]

T = "tensor<4x4xf32>"


def device(r, placed):
    if not placed:
        return ""
    return r.choice(["", '"/device:GPU:0"', '"/device:CPU:0"'])


def attrs(entries, dev):
    if dev:
        entries = entries + ["tandem.device = #tandem.device<%s>" % dev]
    return " {%s}" % ", ".join(entries) if entries else ""


def generate(seed):
    r = random.Random(seed)
    placed = r.random() < 0.3
    values = ["%a0", "%a1"]
    body = []
    for i in range(r.randint(3, 40)):
        dev = device(r, placed)
        x, y, name = r.choice(values), r.choice(values), "%%v%d" % i
        k = r.random()
        if k < 0.25:
            op = r.choice(["add", "mul", "sub", "max"])
            body.append("%s = tandem.%s %s, %s%s : (%s, %s) -> %s" %
                        (name, op, x, y, attrs([], dev), T, T, T))
        elif k < 0.45:
            op = r.choice(["relu", "exp", "neg", "tanh", "sigmoid", "abs"])
            body.append("%s = tandem.%s %s%s : %s" %
                        (name, op, x, attrs([], dev), T))
        elif k < 0.6:
            body.append("%s = tandem.matmul %s, %s%s : (%s, %s) -> %s" %
                        (name, x, y, attrs([], dev), T, T, T))
        elif k < 0.68:
            op = r.choice(["sum", "max", "mean"])
            body.append("%%s%d = tandem.reduce_%s %s%s : %s -> tensor<4x1xf32>"
                        % (i, op, x, attrs(["axes = array<i64: 1>"], dev), T))
            body.append("%s = tandem.add %s, %%s%d%s : (%s, tensor<4x1xf32>) "
                        "-> %s" % (name, y, i, attrs([], dev), T, T))
        elif k < 0.73:
            body.append("%s = tandem.softmax %s%s : %s -> %s" %
                        (name, x, attrs(["axis = 1 : i64"], dev), T, T))
        elif k < 0.8:
            body.append("%s = tandem.transpose %s%s : %s -> %s" %
                        (name, x, attrs(["perm = array<i64: 1, 0>"], dev), T,
                         T))
        elif k < 0.9:
            body.append("%%c%d = tandem.constant dense<2.0> : tensor<f32>" % i)
            body.append("%s = tandem.mul %s, %%c%d%s : (%s, tensor<f32>) -> %s"
                        % (name, x, i, attrs([], dev), T, T))
        else:
            body.append("%%t%d = tandem.concat %s, %s%s : (%s, %s) -> "
                        "tensor<8x4xf32>" % (i, x, y,
                                             attrs(["axis = 0 : i64"], dev),
                                             T, T))
            body.append(
                "%s = tandem.slice %%t%d%s : tensor<8x4xf32> -> %s" %
                (name, i, attrs(["starts = array<i64: 2, 0>",
                                 "limits = array<i64: 6, 4>",
                                 "steps = array<i64: 1, 1>"], dev), T))
        values.append(name)
    results = r.sample(values[2:], k=min(len(values) - 2, r.randint(1, 3)))
    types = ", ".join([T] * len(results))
    lines = ["func.func @f(%%a0: %s, %%a1: %s) -> (%s) {" % (T, T, types)]
    lines += ["  " + line for line in body]
    lines += ["  return %s : %s" % (", ".join(results), types), "}"]
    return "\n".join(lines) + "\n"


def check(tandem_opt, path, options):
    proc = subprocess.run([tandem_opt, path, "-tandem-fuse=" + options],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return proc.stderr.strip()[:1000]
    for m in re.finditer(r"^    (?:%\S+ = )?([a-z_]+\.[a-z_0-9]+)", proc.stdout,
                         re.M):
        if m.group(1) not in ("tandem.constant", "tandem.fusion",
                              "func.return"):
            return "op outside fusions: " + m.group(1)
    return None


def main():
    tandem_opt, workdir = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    os.makedirs(workdir, exist_ok=True)
    passed = failed = 0
    for seed in range(count):
        path = os.path.join(workdir, "graph%d.mlir" % seed)
        with open(path, "w") as f:
            f.write(generate(seed))
        for options in OPTION_SETS:
            problem = check(tandem_opt, path, options)
            if problem:
                failed += 1
                print("FAIL seed %d [%s]: %s" % (seed, options, problem))
            else:
                passed += 1
    print("random-graphs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
