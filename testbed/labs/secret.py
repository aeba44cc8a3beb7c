"""The instructor's secret and the key's signature (``mcastlab lab N --solve``, ``--sign``,
``--check ... --against KEY``).

A lab's key is the testbed's measurement of its answers: whoever holds it holds the answers.
So writing a key, judging against one and seeing the measured value of a wrong answer are
the instructor's, and need the instructor's secret: from ``--secret-file FILE``, else the
file named by $MCASTLAB_INSTRUCTOR_SECRET_FILE, else the value of
$MCASTLAB_INSTRUCTOR_SECRET. A secret file must lie outside the checkout (a copy of the
checkout handed to students would carry it) and be readable by its owner only (chmod 600,
as ssh asks of a private key); a secret has at least MIN_CHARS characters.

`sign` appends an HMAC-SHA256 (Python's hmac, RFC 2104) of the key's text under the secret
as its last line, a TOML comment, so that a signed key still reads as an answer file;
`verify` refuses a key without it, or whose text changed after it was signed, or that was
signed with another secret. What that buys and what it does not: docs/labs.md, "The key
and the instructor secret"."""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from ..errors import UsageError

ENV = "MCASTLAB_INSTRUCTOR_SECRET"
ENV_FILE = "MCASTLAB_INSTRUCTOR_SECRET_FILE"
MIN_CHARS = 16
SIGNATURE = "# mcastlab key signature: hmac-sha256 "
CONTEXT = b"mcastlab lab key v1\n"  # what the MAC is of: a lab key, this format
# a student's variant file (testbed.labs.variant_file): signed alike, under its own line and
# context, so that neither passes for the other
VARIANT_SIGNATURE = "# mcastlab variant signature: hmac-sha256 "
VARIANT_CONTEXT = b"mcastlab lab variant file v1\n"
CHECKOUT = Path(__file__).resolve().parents[2]
HOW = (f"give it with --secret-file FILE (outside the checkout, chmod 600) or ${ENV} "
       "(docs/labs.md, 'The key and the instructor secret')")


def _from_file(path: Path, source: str) -> bytes:
    try:
        real = path.resolve()
        mode = real.stat().st_mode
        data = real.read_bytes()
    except OSError as exc:
        raise UsageError(f"{source}: cannot read {path}: {exc.strerror}") from None
    if real == CHECKOUT or CHECKOUT in real.parents:
        raise UsageError(f"{source}: {path} lies inside the checkout ({CHECKOUT}), which a "
                         "students' copy would carry: keep the secret outside it")
    if not stat.S_ISREG(mode):
        raise UsageError(f"{source}: {path} is not a file")
    if mode & 0o077:
        raise UsageError(f"{source}: {path} can be read by others (mode {mode & 0o777:o}): "
                         f"chmod 600 {path}")
    return data.strip()


def instructor_secret(secret_file: Path | None = None,
                      environ: Mapping[str, str] = os.environ) -> bytes | None:
    """The instructor's secret, or None when none is given; one given but unusable (a file
    that cannot be read, inside the checkout, readable by others; too short) is a
    UsageError."""
    if secret_file is not None:
        secret, source = _from_file(secret_file, "--secret-file"), "--secret-file"
    elif environ.get(ENV_FILE):
        secret, source = _from_file(Path(environ[ENV_FILE]), f"${ENV_FILE}"), f"${ENV_FILE}"
    elif environ.get(ENV):
        secret, source = environ[ENV].strip().encode(), f"${ENV}"
    else:
        return None
    if len(secret) < MIN_CHARS:
        raise UsageError(f"{source}: the instructor secret is shorter than {MIN_CHARS} "
                         "characters; make one with: python3 -c 'import secrets; "
                         "print(secrets.token_hex(32))'")
    return secret


def require(what: str, secret_file: Path | None = None,
            environ: Mapping[str, str] = os.environ) -> bytes:
    """The secret, for `what` (an option that needs it); none is a UsageError saying how."""
    secret = instructor_secret(secret_file, environ)
    if secret is None:
        raise UsageError(f"{what} is the instructor's and needs the instructor secret: {HOW}")
    return secret


def _mac(body: str, secret: bytes, context: bytes = CONTEXT) -> str:
    return hmac.new(secret, context + body.encode(), hashlib.sha256).hexdigest()


def unsigned(text: str, line: str = SIGNATURE) -> str:
    """A key's text before its (last) signature line; all of it when it has none."""
    if text.startswith(line) and "\n" + line not in text:
        return ""
    at = text.rfind("\n" + line)
    return text if at < 0 else text[:at + 1]


def sign(text: str, secret: bytes, line: str = SIGNATURE, context: bytes = CONTEXT) -> str:
    """The key's text with its signature as the last line (a signature already there is
    replaced); `line` and `context` another kind of file's (VARIANT_*)."""
    body = unsigned(text, line)
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{body}{line}{_mac(body, secret, context)}\n"


def signed_right(text: str, secret: bytes, line: str = SIGNATURE,
                 context: bytes = CONTEXT) -> bool | None:
    """None when `text` carries no signature line; else whether it is this secret's over
    the text before it, with nothing after it (a line after it is a change: TOML would read
    it, the signature does not cover it)."""
    body = unsigned(text, line)
    if body == text:
        return None
    first, *after = text[len(body):].splitlines()
    given = first[len(line):].strip()
    right = hmac.compare_digest(given.encode(), _mac(body, secret, context).encode())
    return right and not any(rest.strip() for rest in after)


def verify(path: Path, text: str, secret: bytes, lab: int) -> None:
    """Refuse (UsageError) a key that is not signed, or not by this secret, or changed (a
    line after the signature is a change: TOML would read it, the signature does not cover
    it)."""
    right = signed_right(text, secret)
    if right is None:
        raise UsageError(f"{path} is not signed with the instructor secret (a key written "
                         f"before keys were signed, or not by --solve): check it, then "
                         f"sign it with mcastlab lab {lab} --sign {path}")
    if not right:
        raise UsageError(f"{path}: the signature does not match: the key was changed after "
                         "it was signed, or signed with another instructor secret")
