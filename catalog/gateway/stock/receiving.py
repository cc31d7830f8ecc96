"""Receiving a shipment of many products from a CSV file (`product_id,quantity,reference`).

The whole file is checked first (format, then every product exists: BatchGetItem, 100 IDs a
request) and every problem is listed by line; nothing is written if there is one. Then each line
is its own `received` stock change (one TransactWriteItems), with an idempotency key made of the
file's content hash and the line number: uploading the same file again, or carrying on after an
interruption, applies no line twice. Lines are applied in chunks (`receive_lines(start=, count=)`)
so that a web request or a progress bar can follow a long file.
"""
from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from common.numbers import Unreadable, parse_whole

from .. import keys
from ..catalog.products import products_get_many
from ..dynamo.batches import batch_get
from ..errors import IdempotencyConflict, InvalidInput
from ..validate import MAX_QUANTITY, MAX_REFERENCE, valid_id
from .entities import RECEIVED
from .stock import stock_increase

HEADER = ("product_id", "quantity", "reference")
MAX_FILE_LINES = 20_000
MAX_FILE_BYTES = 2 * 1024 * 1024
CHUNK = 100  # lines a chunk: one BatchGetItem reads their products' levels (the writes' hints)


class ReceiptInvalid(InvalidInput):
    """The file has problems (`problems`, each naming its line); nothing was written."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the file; nothing was received.")


@dataclass(frozen=True)
class ReceiptLine:
    line: int  # the line number in the file (the header is line 1)
    product_id: str
    quantity: int
    reference: str
    token: str  # the idempotency key: the file's hash and the line number


@dataclass(frozen=True)
class Receipt:
    digest: str  # sha256 of the file's text (UTF-8, no byte-order mark)
    lines: tuple

    @property
    def units(self) -> Any:
        return sum(line.quantity for line in self.lines)


@dataclass
class ReceiveProgress:
    """What applying lines did: `applied` now, `replayed` (applied before: by an earlier upload of
    the same file, or an interrupted run), `units` received now."""

    done: int = 0
    applied: int = 0
    replayed: int = 0
    units: int = 0
    products: set = field(default_factory=set)

    def add(self, other: Any) -> None:
        self.done += other.done
        self.applied += other.applied
        self.replayed += other.replayed
        self.units += other.units
        self.products |= other.products


def parse(content: Any) -> Receipt:
    """Check the file's format (bytes): a Receipt, or ReceiptInvalid listing every problem."""
    receipt, problems = _parse(content)
    if problems:
        raise ReceiptInvalid(problems)
    return receipt


def _parse(content: Any) -> tuple[Receipt, list[str]] | tuple[Receipt, list[Any]]:
    """(Receipt of the well-formed lines, problems)."""
    if len(content) > MAX_FILE_BYTES:
        return Receipt(digest="", lines=()), [f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"]
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return Receipt(digest="", lines=()), ["the file is not UTF-8 text"]
    # The hash of the text (without a byte-order mark): the web page keeps the text, the command
    # reads the bytes; both give a line the same idempotency key.
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    reader = csv.reader(io.StringIO(text, newline=""))
    problems: list[str] = []
    lines: list[ReceiptLine] = []
    rows = _rows(reader, problems)
    header = next(rows, None)
    if header is None or tuple(h.strip().lower() for h in header) != HEADER:
        return Receipt(digest=digest, lines=()), problems or [f"line 1: the header must be {','.join(HEADER)}"]
    for row in rows:
        number = reader.line_num
        if not row or all(not cell.strip() for cell in row):
            continue  # blank lines are skipped
        if len(lines) >= MAX_FILE_LINES:
            problems.append(f"line {number}: at most {MAX_FILE_LINES:,} lines a file")
            break
        if len(row) != 3:
            problems.append(f"line {number}: expected 3 fields (product_id,quantity,reference), found {len(row)}")
            continue
        product_id, typed, reference = (cell.strip() for cell in row)
        quantity = 0
        before = len(problems)
        if not valid_id(product_id):
            problems.append(f"line {number}: {product_id!r} is not a product ID")
        try:
            quantity = parse_whole(typed, minimum=1, maximum=MAX_QUANTITY)
        except Unreadable:
            problems.append(f"line {number}: quantity {typed[:20]!r} must be a whole number from 1 to "
                            f"{MAX_QUANTITY:,}")
        if len(reference) > MAX_REFERENCE:
            problems.append(f"line {number}: the reference must be at most {MAX_REFERENCE} characters")
        if len(problems) == before:
            lines.append(ReceiptLine(
                line=number, product_id=product_id, quantity=quantity, reference=reference,
                token=f"rcv-{digest[:32]}-{number}",
            ))
    if not lines and not problems:
        problems.append("the file has no lines to receive")
    return Receipt(digest=digest, lines=tuple(lines)), problems


def _rows(reader: Any, problems: list[str]) -> Iterator[list[str]]:
    """The rows of a csv.reader; one it cannot read (a field over csv.field_size_limit(), 131,072
    characters) is a problem, and the last row."""
    try:
        yield from reader
    except csv.Error as exc:
        problems.append(f"line {reader.line_num}: not readable as CSV ({exc})")


def validate(content: Any) -> Receipt:
    """parse() and check that every product exists (BatchGetItem, 100 IDs a request)."""
    receipt, problems = _parse(content)
    ids = list(dict.fromkeys(line.product_id for line in receipt.lines))
    found = {i["productId"] for i in batch_get([keys.product_key(pid) for pid in ids], projection="productId")}
    problems += [f"line {line.line}: no product with ID {line.product_id!r}"
                 for line in receipt.lines if line.product_id not in found]
    if problems:
        raise ReceiptInvalid(sorted(problems, key=_line_number))
    return receipt


def _line_number(problem: Any) -> int:
    head = problem.split(":", 1)[0]
    return int(head[5:]) if head.startswith("line ") and head[5:].isdigit() else 0


def receive_lines(
    receipt: Any, *, who: str, start: int = 0, count: int | None = None, progress: Any = None
) -> ReceiveProgress:
    """Apply lines `start` to `start + count` (all by default) of a validated Receipt, each its own
    idempotent `received` change: one BatchGetItem a chunk of 100 for the levels (hints that save
    each write its read) and one TransactWriteItems a line. Returns a ReceiveProgress;
    `progress(n)` is called after each chunk."""
    stop = len(receipt.lines) if count is None else min(len(receipt.lines), start + count)
    result = ReceiveProgress()
    for chunk_start in range(start, stop, CHUNK):
        chunk = receipt.lines[chunk_start:min(stop, chunk_start + CHUNK)]
        products = products_get_many(product_ids=[line.product_id for line in chunk], consistent=True)
        levels = {pid: (p.stock_level, p.reorder_point) for pid, p in products.items()}
        for line in chunk:
            level, reorder_point = levels.get(line.product_id, (None, None))
            try:
                change = stock_increase(
                    product_id=line.product_id, quantity=line.quantity, token=line.token, reason=RECEIVED,
                    reference=line.reference, who=who, note=f"receipt {receipt.digest[:12]} line {line.line}",
                    expected_level=level, expected_reorder_point=reorder_point,
                )
            except IdempotencyConflict:
                # The key is this file's line (its digest and number): received before by someone
                # else (another staff member, or the command): the one thing that can differ.
                change = None
            result.done += 1
            result.products.add(line.product_id)
            if change is None or change.replayed:
                result.replayed += 1
                levels.pop(line.product_id, None)  # the replay's level is of then: read it again
            else:
                result.applied += 1
                result.units += line.quantity
                levels[line.product_id] = (change.level, reorder_point)
        if progress:
            progress(len(chunk))
    return result
