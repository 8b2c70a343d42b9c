"""Fixtures of the tandem package's tests: the small models compiled once
per session with build/bin/tandemc (tandem.compile), and their ONNX
protos for onnxruntime references."""
import os

import pytest

import tandem

import onnx_models

# Tests compare with onnxruntime at these tolerances (as test/e2e does).
RTOL, ATOL = 1e-4, 1e-5


def pytest_report_header(config):
    return ["tandem package: %s" % os.path.dirname(tandem.__file__),
            "tandem runtime: %s" % tandem.runtime_library(),
            "tandemc: %s" % tandem.find_tandemc()]


class Compiled:
    """An ONNX proto and its compiled artifact."""

    def __init__(self, proto, artifact):
        self.proto, self.artifact = proto, artifact

    @property
    def path(self):
        return self.artifact.path


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def mlp(workdir):
    proto = onnx_models.mlp()
    art = tandem.compile(proto, workdir / "mlp.so", name="mlp",
                         input_shapes={"x": (4, 16)})
    return Compiled(proto, art)


@pytest.fixture(scope="session")
def two_io(workdir):
    proto = onnx_models.two_io()
    return Compiled(proto, tandem.compile(proto, workdir / "two_io.so",
                                          name="two_io"))


@pytest.fixture(scope="session")
def gather(workdir):
    proto = onnx_models.gather()
    return Compiled(proto, tandem.compile(proto, workdir / "gather.so",
                                          name="gather"))


@pytest.fixture(scope="session")
def mlp_gpu(workdir):
    """The MLP with every op on the GPU: a device program (PTX for sm_90
    and CPU twins), runnable on CUDA, the emulated device or the CPU."""
    proto = onnx_models.mlp()
    art = tandem.compile(proto, workdir / "mlp_gpu.so", name="mlp_gpu",
                         input_shapes={"x": (4, 16)}, target="cpu,gpu:sm_90",
                         place=["*=gpu"])
    return Compiled(proto, art)
