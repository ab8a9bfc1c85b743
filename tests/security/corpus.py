"""Hostile input for the security tests, and the rule v2 and v3 are held to.

:data:`VALUES` is the corpus: quotes, Python code, SQL fragments, LIKE
wildcards, NUL and control characters, huge and odd numbers, unicode edge
cases and very long strings.  Each entry is ``(name, raw)`` where ``raw`` is
the exact byte string sent in a URL (already percent-encoded), so invalid
UTF-8 and lone surrogates can be sent too.

:func:`status_problem` is the rule of docs/reliability.md ("The rule v2 and
v3 are held to": DjonyResource better, never worse): v3 never answers 500
where v2 does not; where v2 answers 500 (a ModelResource bug) v3 answers 4xx;
otherwise both answer the same status class.

:class:`Sentinel` is the file that code smuggled into a request would create
(``__import__('os').system('touch ...')``); it must never exist.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from urllib.parse import quote

from django.apps import apps
from django.db import connection, transaction
from django.test import Client


# --- the sentinel ------------------------------------------------------------
class Sentinel:
    """A path that only injected code would create."""

    def __init__(self) -> None:
        self.path = os.path.join(tempfile.gettempdir(), f"djony_pwned_{os.getpid()}")
        self.remove()

    def remove(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def exists(self) -> bool:
        return os.path.exists(self.path)


SENTINEL = Sentinel()
TOUCH = f"__import__('os').system('touch {SENTINEL.path}')"


# --- the corpus -----------------------------------------------------------------
def _q(text: str) -> str:
    """``text`` percent-encoded for a query string (every byte but unreserved ones)."""
    return quote(text, safe="")


CODE = [
    ("python_import_system", TOUCH),
    ("python_lambda", "lambda: 0"),
    ("python_lambda_touch", f"lambda b: {TOUCH}"),
    ("python_eval", f'eval("{TOUCH}")'),
    ("python_exec", f'exec("{TOUCH}")'),
    ("pony_generator", f"x for x in Book if {TOUCH}"),
    ("pony_raw_sql", "raw_sql('1=1')"),
    ("dunder_class", "().__class__.__bases__[0].__subclasses__()"),
    ("template_jinja", "{{7*7}}"),
    ("template_dollar", "${7*7}"),
    ("format_percent_s", "%s"),
    ("format_percent_named", "%(x)s"),
    ("format_braces", "{0}{}{x}"),
    ("format_percent_d_many", "%d%d%d%d"),
]

QUOTES = [
    ("single_quote", "'"),
    ("double_quote", '"'),
    ("two_single_quotes", "''"),
    ("escaped_quote", "\\'"),
    ("backslash", "\\"),
    ("backtick", "`"),
    ("obrien", "O'Brien"),
]

SQL = [
    ("sql_or_true", "' OR 1=1 --"),
    ("sql_or_true_double", '" OR ""="'),
    ("sql_numeric_or", "1 OR 1=1"),
    ("sql_drop_table", "1; DROP TABLE testapp_book; --"),
    ("sql_quote_drop_table", "'; DROP TABLE testapp_book; --"),
    ("sql_union", "1 UNION SELECT password FROM auth_user --"),
    ("sql_paren", "1) OR (1=1"),
    ("sql_comment", "/* */ --"),
    ("sql_hash_comment", "x' #"),
    ("sql_sleep", "1' AND SLEEP(5) --"),
    ("sql_pg_sleep", "1; SELECT pg_sleep(5)"),
]

LIKE = [
    ("like_percent", "%"),
    ("like_underscore", "_"),
    ("like_both", "%_"),
    ("like_escaped", "\\%"),
    ("like_brackets", "[a-z]"),
    ("like_percent_word", "100%"),
    ("like_underscore_word", "under_score"),
]

NUMBERS = [
    ("int_huge", "99999999999999999999"),
    ("int_huge_negative", "-99999999999999999999"),
    ("int_2_63", "9223372036854775808"),
    ("int_2_31", "2147483648"),
    ("float_huge", "1e308"),
    ("float_overflow", "1e400"),
    ("float_tiny", "1e-400"),
    ("nan", "NaN"),
    ("inf", "inf"),
    ("negative_inf", "-Infinity"),
    ("negative_zero", "-0"),
    ("hex", "0x10"),
    ("underscore_digits", "1_000"),
    ("arabic_indic_digit", "\u0663"),
    ("fullwidth_digits", "\uff11\uff12"),
    ("superscript_two", "\u00b2"),
    ("int_with_space", " 1 "),
    ("exponent_int", "1e3"),
]

ODD = [
    ("empty", ""),
    ("space", " "),
    ("comma", ","),
    ("commas", ",,,"),
    ("none_word", "none"),
    ("null_word", "null"),
    ("true_word", "true"),
    ("json_list", "[1,2]"),
    ("json_object", '{"a":1}'),
    ("path_traversal", "../../etc/passwd"),
    ("html", "<script>alert(1)</script>"),
    ("crlf_header", "x\r\nSet-Cookie: a=b"),
    ("ansi_escape", "\x1b[31mred"),
    ("delete_char", "\x7f"),
    ("tab", "a\tb"),
]

UNICODE = [
    ("rtl_mark", "\u200fabc"),
    ("rtl_override", "\u202eevil"),
    ("combining_acute", "e\u0301"),
    ("combining_pile", "a" + "\u0301" * 50),
    ("zero_width_joiner", "a\u200db"),
    ("bom", "\ufeffDune"),
    ("dotted_i", "\u0130lker"),
    ("sharp_s", "stra\u00dfe"),
    ("emoji", "snake \U0001f40d"),
    ("max_code_point", "\U0010ffff"),
    ("replacement_char", "\ufffd"),
    ("non_character", "\ufffe"),
]

#: Raw query-string bytes that no ``str`` can spell (sent percent-encoded as is).
RAW = [
    ("nul", "%00"),
    ("nul_inside", "a%00b"),
    ("lone_surrogate_utf8", "%ED%A0%80"),
    ("invalid_utf8", "%FF%FE"),
    ("overlong_utf8_slash", "%C0%AF"),
    ("truncated_utf8", "%E2%82"),
    ("percent_alone", "%"),
    ("percent_bad_escape", "%zz"),
]

LONG = [
    ("long_10k", "a" * 10_000),
    ("long_percent_5k", "%" * 5_000),
    ("long_parens", "(" * 1_000),
    ("long_unicode", "\u00e9" * 5_000),
    ("long_commas", "1," * 5_000 + "1"),
]

GROUPS = {
    "code": CODE,
    "quotes": QUOTES,
    "sql": SQL,
    "like": LIKE,
    "numbers": NUMBERS,
    "odd": ODD,
    "unicode": UNICODE,
    "long": LONG,
}

#: ``(name, raw)``: every hostile value, percent-encoded for a URL.
VALUES: list[tuple[str, str]] = [
    (name, _q(text)) for group in GROUPS.values() for name, text in group
] + RAW

#: The same values as text (for JSON bodies and field names); RAW ones decoded as Django would.
TEXTS: list[tuple[str, str]] = [(name, text) for group in GROUPS.values() for name, text in group]


# --- tables ------------------------------------------------------------------
#: Every table a request could touch: the test app's and django.contrib.auth's.
TABLES = [
    m
    for m in apps.get_models(include_auto_created=True)
    if m._meta.managed and not m._meta.proxy and m._meta.app_label in ("testapp", "auth")
]
#: The tables of the write API (tests.write.api).
WRITE_TABLES = [m for m in TABLES if m._meta.app_label == "testapp"]


# --- the rule ------------------------------------------------------------------
def status_problem(v2: int, v3: int) -> str | None:
    """What is wrong with v3 answering ``v3`` where v2 answered ``v2`` (``None``: fine)."""
    if v2 >= 500:
        if 400 <= v3 < 500:
            return None  # the intended improvement
        return f"v2 answers {v2} (a ModelResource bug); v3 must answer 4xx, got {v3}"
    if v3 >= 500:
        return f"v3 answers {v3} where v2 answers {v2}"
    if v2 // 100 != v3 // 100:
        return f"status class differs: v2 {v2}, v3 {v3}"
    return None


# --- requests ------------------------------------------------------------------
def api_client(**defaults) -> Client:
    """A client whose 500s come back as responses (see tests.differential.harness)."""
    return Client(raise_request_exception=False, SERVER_NAME="api.example", **defaults)


def in_savepoint(call):
    """Run ``call()`` in a savepoint that is rolled back (the data set stays as it is).

    An atomic block rather than a bare savepoint: ModelResource's failed
    ``save()`` marks the enclosing atomic block for rollback, which only
    leaving an atomic block clears.
    """
    with transaction.atomic():
        result = call()
        transaction.set_rollback(True)
    return result


def error_of(response) -> str:
    """The error message of a 4xx (JSON's ``error`` key; in other formats, the body)."""
    try:
        return json.loads(response.content).get("error") or ""
    except (ValueError, AttributeError, UnicodeDecodeError):
        content = response.content
        return content.decode("utf-8", "replace") if b"error" in content else ""


def row_counts(models) -> dict[str, int]:
    """``{table: number of rows}`` for ``models``, in one query."""
    tables = [m._meta.db_table for m in models]
    qn = connection.ops.quote_name
    sql = "SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {qn(t)})" for t in tables)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return dict(zip(tables, cursor.fetchone(), strict=True))


def rows_after_failure(before: dict[str, int], models) -> dict[str, int]:
    """:func:`row_counts` after a failed request inside :func:`in_savepoint`.

    A write the database refused dooms the enclosing atomic block, as Django's own
    ``save()`` does (with ``ATOMIC_REQUESTS``, the request is rolled back whole): no
    query can run in it any more, and nothing of the request stays, so the counts are
    the ones from before.
    """
    if transaction.get_rollback():
        return before
    return row_counts(models)


@dataclass
class Mismatch:
    request: str
    v2: int
    v3: int
    problem: str
    body: bytes = b""

    def __str__(self) -> str:
        body = ascii(self.body[:300].decode("utf-8", "replace"))
        return f"{ascii(self.request)}: {self.problem}\n    v3 body: {body}"


def vendor() -> str:
    return connection.vendor
