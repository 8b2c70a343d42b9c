"""The ctypes view of the C API (tandem/_capi.py) against runtime.h: a C
program built from the header prints each structure's size and field
offsets, which must equal ctypes'."""
import ctypes
import os
import re
import shutil
import subprocess

import pytest

from tandem import _capi

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HEADER_DIR = os.path.join(ROOT, "runtime", "include")

STRUCTS = {
    "tandem_tensor_desc_t": _capi.TensorDesc,
    "tandem_device_image_t": _capi.DeviceImage,
    "tandem_device_program_t": _capi.DeviceProgramV4,
    "tandem_model_desc_t": _capi.ModelDescV2,
    "tandem_model_options_t": _capi.ModelOptions,
    "tandem_tensor_t": _capi.Tensor,
    "tandem_model_stats_t": _capi.ModelStats,
}


def test_abi_constants():
    # The ABI definitions live in abi.h, which runtime.h includes.
    with open(os.path.join(HEADER_DIR, "tandem", "abi.h")) as f:
        text = f.read()
    for name, value in (("TANDEM_ABI_VERSION", _capi.ABI_VERSION),
                        ("TANDEM_ABI_VERSION_MULTI_GPU",
                         _capi.ABI_VERSION_MULTI_GPU),
                        ("TANDEM_ABI_VERSION_ONE_GPU",
                         _capi.ABI_VERSION_ONE_GPU),
                        ("TANDEM_ABI_VERSION_CPU_ONLY",
                         _capi.ABI_VERSION_CPU_ONLY)):
        m = re.search(r"#define\s+%s\s+(\d+)" % name, text)
        assert m and int(m.group(1)) == value, name
    for code, name in _capi.DTYPE_NAMES.items():
        assert re.search(r"TANDEM_%s = %d" % (name.upper(), code), text), name


def test_struct_layouts(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to check the layouts with")
    lines = ['#include <stddef.h>', '#include <stdio.h>',
             '#include "tandem/runtime.h"', "int main(void) {"]
    for cname, cls in STRUCTS.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (cname, cname))
        for field, _ in cls._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (
                cname, field, cname, field))
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-I", HEADER_DIR, str(src), "-o",
                    str(exe)], check=True)
    c = dict(line.split() for line in subprocess.run(
        [str(exe)], check=True, capture_output=True,
        text=True).stdout.splitlines())
    for cname, cls in STRUCTS.items():
        assert int(c[cname]) == ctypes.sizeof(cls), cname
        for field, _ in cls._fields_:
            assert int(c["%s.%s" % (cname, field)]) == \
                getattr(cls, field).offset, "%s.%s" % (cname, field)
    assert ctypes.sizeof(_capi.ModelOptions) <= _capi.OPTIONS_BUFFER_BYTES
