"""Asserts that .npy files written by tandem-run hold the expected arrays.

Usage: check_outputs.py ACTUAL.npy EXPECTED.npy [ACTUAL EXPECTED ...]
Dtype, shape and values must match exactly.
"""

import sys

import numpy as np

pairs = sys.argv[1:]
for actual_path, expected_path in zip(pairs[::2], pairs[1::2]):
    actual = np.load(actual_path)
    expected = np.load(expected_path)
    assert actual.dtype == expected.dtype, (actual_path, actual.dtype,
                                            expected.dtype)
    assert actual.shape == expected.shape, (actual_path, actual.shape)
    assert np.array_equal(actual, expected), (actual_path, actual, expected)
    print("ok", actual_path.split("/")[-1], actual.dtype, actual.shape)
