"""Exceptions raised by ctxkit: one base class, one subclass per status code.

Every failure of the C++ library reaches Python as an instance of the
subclass for its status code (``ctxkit.NotFoundError`` for ``not_found``,
...); all of them derive from :class:`ctxkit.Error`, whose ``code``
attribute is the code's name as the CLI and MCP server print it. Where a
built-in exception means the same thing, the subclass derives from it too,
so ``except KeyError`` style handling keeps working.
"""

from __future__ import annotations


class Error(Exception):
    """Base class of every error ctxkit raises."""

    code: str = "unknown"


class NotFoundError(Error, KeyError):
    """No such key, version, ref, session or file."""

    code = "not_found"

    def __str__(self) -> str:  # KeyError would quote the message.
        return str(self.args[0]) if self.args else ""


class InvalidArgumentError(Error, ValueError):
    """A bad key, ref string, JSON document, option or argument."""

    code = "invalid_argument"


class PermissionDeniedError(Error, PermissionError):
    """The view may not see that scope, or the OS denied access."""

    code = "permission_denied"


class AlreadyExistsError(Error):
    """The target of a create or promote is taken."""

    code = "already_exists"


class FailedPreconditionError(Error):
    """The operation does not apply to this object now (a CAS conflict,
    a budget below the minimum a session renders in, ...)."""

    code = "failed_precondition"


class ResourceExhaustedError(Error):
    """A configured limit was reached, or the disk is full."""

    code = "resource_exhausted"


class IoError(Error, OSError):
    """The operating system or the database failed."""

    code = "io_error"


class CorruptionError(Error):
    """Stored data failed an integrity check."""

    code = "corruption"


class UnavailableError(Error):
    """The value lives in another process or session."""

    code = "unavailable"


class InternalError(Error):
    """A bug in ctxkit; please report it."""

    code = "internal"


_BY_CODE = {
    cls.code: cls
    for cls in (
        NotFoundError,
        InvalidArgumentError,
        PermissionDeniedError,
        AlreadyExistsError,
        FailedPreconditionError,
        ResourceExhaustedError,
        IoError,
        CorruptionError,
        UnavailableError,
        InternalError,
    )
}


def error_class(code: str) -> type[Error]:
    """The exception class for a status code name (Error for an unknown one)."""
    return _BY_CODE.get(code, Error)
