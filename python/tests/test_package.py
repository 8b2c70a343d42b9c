"""The installed package: it carries its own runtime library and finds
tandemc in the build it was installed from. python/tests/run.sh installs it
with pip into a scratch directory and sets TANDEM_TEST_INSTALLED=1; run from
the source tree (PYTHONPATH=python) these checks do not apply."""
import os

import pytest

import tandem

INSTALLED = os.environ.get("TANDEM_TEST_INSTALLED") == "1"


@pytest.mark.skipif(not INSTALLED, reason="source tree, not an install")
def test_runtime_ships_inside_the_package():
    pkg = os.path.dirname(os.path.realpath(tandem.__file__))
    lib = tandem.runtime_library()
    assert lib == os.path.join(pkg, "_lib", "libtandem_runtime.so")
    from tandem import _build_config
    assert tandem.find_tandemc() == os.path.join(_build_config.BUILD_DIR,
                                                 "bin", "tandemc")
    assert os.path.isfile(os.path.join(pkg, "py.typed"))


def test_public_api():
    for name in tandem.__all__:
        assert getattr(tandem, name).__doc__, name
    assert issubclass(tandem.InvalidArgumentError, ValueError)
    assert issubclass(tandem.CompileError, tandem.TandemError)
