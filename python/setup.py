"""Build step of the tandem package: ships the runtime inside it.

pyproject.toml holds the metadata. This file adds one thing to setuptools'
build_py: it copies libtandem_runtime.so from Tandem's build directory
($TANDEM_BUILD_DIR, default ../build next to this directory) into the
package (tandem/_lib/) and records that build directory in
tandem/_build_config.py, where tandem.compile looks for tandemc. The wheel
is platform-specific because it carries that library.
"""
import os
import shutil

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libtandem_runtime.so"


def build_dir():
    return os.path.abspath(os.environ.get("TANDEM_BUILD_DIR") or
                           os.path.join(HERE, "..", "build"))


class BuildWithRuntime(build_py):
    def run(self):
        super().run()
        build = build_dir()
        lib = os.path.join(build, "lib", LIBRARY)
        if not os.path.isfile(lib):
            raise SystemExit(
                "tandem: %s is missing: build Tandem first (scripts/"
                "configure.sh build && ninja -C build all), or point "
                "TANDEM_BUILD_DIR at a build directory" % lib)
        dest = os.path.join(self.build_lib, "tandem", "_lib")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(lib, os.path.join(dest, LIBRARY))
        with open(os.path.join(self.build_lib, "tandem", "_build_config.py"),
                  "w") as f:
            f.write('"""Written by setup.py: the Tandem build this package '
                    'was installed from."""\nBUILD_DIR = %r\n' % build)


class BinaryDistribution(Distribution):
    """The package holds a native library: tag the wheel for the platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithRuntime}, distclass=BinaryDistribution)
