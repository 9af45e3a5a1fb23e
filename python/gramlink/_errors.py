"""The one exception of gramlink: the core's errors, with their stable code."""


class GramlinkError(Exception):
    """An error of gramlink's core. ``code`` is its stable code (the CLI's
    ``error[CODE]`` and the JS API's ``Error.code``), e.g. ``INVALID_EPSILON``,
    ``FINGERPRINT_MISMATCH``, ``TRUNCATED_MESSAGE``."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message, code)
        self.message = message
        self.code = code

    def __str__(self) -> str:
        # the code is in the text too: a Spark worker's error reaches the
        # driver as text, and gramlink.spark reads the code back from it
        return f"[{self.code}] {self.message}"
