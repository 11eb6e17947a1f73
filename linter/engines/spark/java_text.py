"""What Java said, out of the text Py4J and PySpark wrap it in.

A call into the JVM that fails reads ``An error occurred while calling
None.org.apache.spark...`` first and the JVM's own words on a later line, behind
one or more exception class names. A failed start (``session``) and a failed
run (``failures``) both print those words alone; this leaf module is where they
are taken out, so that both say them the same way without importing each other.
"""
from __future__ import annotations

import re

# "org.apache.spark.SparkException: " and the like, nested too
_JAVA_CLASS = re.compile(r"^(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error): ")
# Py4J's and Spark's framing in front of a message: the call, exception classes, [ERROR_CLASS] tags
FRAMING = re.compile(r"^(?:An error occurred while calling [\w.$]+\.\s*|"
                     r"(?:org\.apache\.spark\.|py4j\.protocol\.|pyspark\.errors\.)[\w.$]*(?:Exception|Error):\s*|"
                     r"\[[A-Z_]+(?:\.[A-Z_]+)*\]\s*)+")
LIMIT = 300


def said(text: str) -> str:
    """The first line of ``text`` a user should read: for a Py4J call, the JVM's
    message (``Asked to run locally with 0 threads``) without the exception classes
    in front of it; otherwise the first line itself. At most LIMIT characters."""
    lines = text.strip().splitlines() or [""]
    if lines[0].startswith("An error occurred while calling"):
        message = next((line[2:] for line in lines[1:] if line.startswith(": ")), "")
        while _JAVA_CLASS.match(message):
            message = _JAVA_CLASS.sub("", message, count=1)
        if message.strip():
            return message.strip()[:LIMIT]
    return lines[0][:LIMIT]


def unframed(line: str) -> str:
    """``line`` without Py4J's and Spark's framing in front of it."""
    return FRAMING.sub("", line).strip()


def exception_text(exc: BaseException) -> str:
    """The failure's whole chain as text: each exception, and what Java said of it."""
    parts = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        parts.append(f"{type(exc).__name__}: {exc}")
        java = getattr(exc, "java_exception", None)
        if java is not None:
            try:
                parts.append(str(java.toString()))
            except Exception:  # the JVM is gone: its exception cannot be asked
                pass
        exc = exc.__cause__ or exc.__context__
    return "\n".join(parts)


# what Spark says of a --conf value it cannot take (a word for a number, an unknown choice)
BAD_CONF_VALUE = re.compile(r"\[INVALID_CONF_VALUE[.\w]*\] ([^\n]*?)\.?(?: SQLSTATE: \w+)?$", re.MULTILINE)
BAD_CONF_HINT = "fix that --conf value or drop it"
