"""The exceptions of the tandem package.

Every failure of the runtime comes back as a tandem_status_t with a code and
a message; the package raises the exception class of that code, carrying the
runtime's message unchanged. Compilation failures raise CompileError with
tandemc's diagnostics.
"""
from typing import Optional, Sequence

__all__ = [
    "TandemError", "InvalidArgumentError", "OutOfMemoryError", "BusyError",
    "UnavailableError", "InternalError", "ModelClosedError", "CompileError",
]


class TandemError(RuntimeError):
    """Base class of every error the tandem package raises.

    `code` is the runtime's status code name ("INVALID_ARGUMENT", ...) or
    None when the error did not come from the runtime."""

    code: Optional[str] = None

    def __init__(self, message: str, code: Optional[str] = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class InvalidArgumentError(TandemError, ValueError):
    """TANDEM_INVALID_ARGUMENT: a bad input (wrong dtype, shape, count, a
    missing input, a malformed descriptor, an unknown device spec)."""
    code = "INVALID_ARGUMENT"


class OutOfMemoryError(TandemError, MemoryError):
    """TANDEM_OUT_OF_MEMORY."""
    code = "OUT_OF_MEMORY"


class BusyError(TandemError):
    """TANDEM_BUSY: a run of the same instance was already in progress."""
    code = "BUSY"


class UnavailableError(TandemError):
    """TANDEM_UNAVAILABLE: a device or library is not there."""
    code = "UNAVAILABLE"


class InternalError(TandemError):
    """TANDEM_INTERNAL: the model's entry (or a kernel, copy or launch of its
    device program) failed."""
    code = "INTERNAL"


class ModelClosedError(TandemError, ValueError):
    """The model was closed; like I/O on a closed file."""


class CompileError(TandemError):
    """tandemc failed. `diagnostics` is its stderr (the errors naming the
    file, node and values), `returncode` its exit status and `command` the
    command line that ran."""

    def __init__(self, message: str, diagnostics: str = "",
                 returncode: Optional[int] = None,
                 command: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics
        self.returncode = returncode
        self.command = list(command)


# Status code (tandem_status_code_t value) -> exception class.
BY_CODE = {
    1: InvalidArgumentError,
    2: OutOfMemoryError,
    3: BusyError,
    4: UnavailableError,
    5: InternalError,
}
