"""Writes the .npy files of tandem-run's lit tests into a directory.

Usage: make_npy.py DIR
The fixture models are in test/runtime/TestModels.c: test_add (a + b on
f32[2,3]), test_scale (2 * x + 1 on f32[4096]) and test_cast.
"""

import os
import sys

import numpy as np
import numpy.lib.format as npy_format

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, array, version=None):
    path = os.path.join(out, name)
    if version is None:
        np.save(path, array)
    else:
        with open(path, "wb") as f:
            npy_format.write_array(f, array, version=version)


a = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.full((2, 3), 0.5, dtype=np.float32)
save("a.npy", a)
save("b.npy", b)
save("b_v2.npy", b, version=(2, 0))
save("b_v3.npy", b, version=(3, 0))
save("sum.npy", a + b)
# One element off by 1e-3 (relative 2e-4): fails the default tolerances,
# passes --rtol 1e-3.
near = a + b
near[1, 2] += 1e-3
save("near.npy", near)
off = a + b
off[1, 0] = 42
save("off.npy", off)

# Bad inputs.
save("transposed.npy", np.zeros((3, 2), np.float32))
save("f64.npy", np.zeros((2, 3), np.float64))
save("c64.npy", np.zeros((2, 3), np.complex64))
save("i32.npy", np.zeros((2, 3), np.int32))
save("fortran.npy", np.asfortranarray(np.zeros((2, 3), np.float32)))
save("bigendian.npy", np.zeros((2, 3), ">f4"))
np.save(os.path.join(out, "object.npy"), np.array([1, "x"], dtype=object),
        allow_pickle=True)
with open(os.path.join(out, "truncated.npy"), "wb") as f:
    f.write(open(os.path.join(out, "a.npy"), "rb").read()[:-4])
with open(os.path.join(out, "garbage.npy"), "wb") as f:
    f.write(b"this is not a numpy file at all")

# test_cast: i32 and f16 in; i64, bool and f32 out.
n = np.array([-2, 0, 3, 100], np.int32)
h = np.array([1.0, -2.0, 0.5, 65504.0], np.float16)
save("n.npy", n)
save("h.npy", h)
save("twice.npy", n.astype(np.int64) * 2)
save("positive.npy", n > 0)
save("widened.npy", h.astype(np.float32))

# test_scale.
x = np.linspace(-1, 1, 4096, dtype=np.float32)
save("x.npy", x)
save("y.npy", 2 * x + 1)

# test_bool: bool[4] flags. NumPy only writes 0 and 1; a hand-patched file
# holds a 2, which tandem-run's reader refuses.
flags = np.array([True, False, True, True])
save("flags.npy", flags)
with open(os.path.join(out, "flags.npy"), "rb") as f:
    raw = bytearray(f.read())
raw[-2] = 2  # element 2
with open(os.path.join(out, "flags_bad.npy"), "wb") as f:
    f.write(raw)

# test_names: f32[1] x.
save("one.npy", np.array([1.0], np.float32))

# NaN and infinities through test_add (b is 0.5 everywhere): a reference with
# NaN and the same infinities at the same places matches; one with NaN
# elsewhere or an infinity of the other sign does not.
with np.errstate(invalid="ignore"):
    special = np.array([[np.nan, np.inf, -np.inf], [1, 2, 3]], np.float32)
    save("special.npy", special)
    save("special_sum.npy", special + b)
    moved = special + b
    moved[0, 0], moved[1, 0] = 1.5, np.nan
    save("special_moved.npy", moved)
    flipped = special + b
    flipped[0, 1] = -np.inf
    save("special_flipped.npy", flipped)

# A valid f32[2,3] file with 100000 bytes of junk after it: more than any
# header could take, so it is refused by size before it is read.
with open(os.path.join(out, "oversized.npy"), "wb") as f:
    f.write(open(os.path.join(out, "a.npy"), "rb").read() + b"\0" * 100000)
