"""A staff edit's search terms that do not fit its transaction (a long name: DynamoDB takes 100 actions).

The edit's transaction writes what fits and a TERMS_PENDING item (keys.terms_pending_key) whose `tasks` say
what is left: a term item to put or to delete, a term's count to move. `terms_finish` then does the tasks in
further transactions, each removing its tasks from the item in the same transaction, so a task is done once
however often it is run or wherever it stops (the edit right after its transaction; run_stock_jobs after a
crash). A term item is put or deleted only while the product is still at the edit's version: a later write
(an import) is never undone; a count always moves (counts add up whatever came between). The next edit of
the product waits for its tasks (its transaction checks that no TERMS_PENDING item is there)."""
from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from .. import keys
from ..dynamo.backoff import pause
from ..dynamo.boundary import error_code, translate_errors
from ..dynamo.client import client, read, table_name
from ..dynamo.codec import deserialize, serialize
from ..dynamo.conditions import Attr, all_of, expression
from ..dynamo.pages import KeyRange, query_all
from ..dynamo.transact import Action, check, delete, put, transact_write, update
from ..errors import CatalogUnavailable
from ..validate import client_request_token
from .entities import Product

TASKS_A_TRANSACTION = 20  # each at most two actions (a count's two items), with the item's own update
ATTEMPTS = 8


def none_pending(product_id: str) -> Action:
    """The ConditionCheck an edit's transaction carries: no earlier edit's terms are still pending."""
    return check(keys.terms_pending_key(product_id), condition=Attr("PK").not_exists())


def pending_put(product_id: str, version: int, leftovers: list[Action], deltas: dict[str, int]) -> Action:
    """The TERMS_PENDING item of an edit to `version`: its term puts and deletes that did not fit (`leftovers`,
    transaction actions) and every term count it moves; only if none is pending already."""
    tasks: list[dict[str, Any]] = []
    for action in leftovers:
        if "Put" in action:
            pk = action["Put"]["Item"]["PK"]["S"]
            tasks.append({"kind": "put", "term": pk.removeprefix(keys.TERM_PREFIX)})
        else:
            key = deserialize(action["Delete"]["Key"])
            tasks.append({"kind": "delete", "term": key["PK"].removeprefix(keys.TERM_PREFIX), "sk": key["SK"]})
    tasks += [{"kind": "count", "term": term, "delta": delta} for term, delta in sorted(deltas.items())]
    item = {**keys.terms_pending_key(product_id), "type": "TERMS_PENDING", "productId": product_id,
            "version": version, "tasks": {f"t{n}": task for n, task in enumerate(tasks)}}
    return put(item, if_absent=True)


def _get(key: dict[str, Any], on_request: Any) -> dict[str, Any] | None:
    with translate_errors():
        response = read("GetItem", {"TableName": table_name(), "Key": serialize(key), "ConsistentRead": True})
    on_request("GetItem")
    return deserialize(response["Item"]) if "Item" in response else None


def _count_updates(term: str, delta: int) -> list[Action]:
    return [update({"PK": k["PK"], "SK": k["SK"]}, "SET #t = :t, ByPrice1PK = :ipk, ByPrice1SK = :isk ADD #c :d",
                   {":t": "TERM_COUNT", ":ipk": k["ByPrice1PK"], ":isk": k["ByPrice1SK"], ":d": delta},
                   names={"#t": "type", "#c": "count"}) for k in keys.term_count_keys(term)]


def _task_actions(task: dict[str, Any], term_items: dict[str, Any] | None) -> list[Action]:
    """A task's writes; a put or delete none once the product moved on (`term_items` None)."""
    if task["kind"] == "count":
        return _count_updates(task["term"], int(task["delta"]))
    if term_items is None:
        return []
    if task["kind"] == "put":
        item = term_items.get(keys.term_pk(task["term"]))
        return [put(item)] if item is not None else []
    return [delete({"PK": keys.term_pk(task["term"]), "SK": task["sk"]})]


def _chunk(marker: dict[str, Any], names: list[str], term_items: dict[str, Any] | None) -> list[Action]:
    """One transaction: these tasks taken off the item (only if all are still on it) and done."""
    product_id, version = marker["productId"], int(marker["version"])
    taken = update(keys.terms_pending_key(product_id),  # task names are t0, t1, ...: safe in an Attr path
                   "REMOVE " + ", ".join(f"tasks.#t{n}" for n in range(len(names))), {},
                   condition=all_of(*(Attr(f"tasks.{name}").exists() for name in names)),
                   names={f"#t{n}": name for n, name in enumerate(names)})
    actions = [taken]
    for name in names:
        actions += _task_actions(marker["tasks"][name], term_items)
    if term_items is not None and any(marker["tasks"][n]["kind"] != "count" for n in names):
        actions.append(check(keys.product_key(product_id), condition=Attr("version").eq(version)))
    return actions


def terms_finish(*, product_id: str, on_request: Any = None) -> int:
    """Do a product's pending term tasks, if any (idempotent): a GetItem of the item and of the product,
    then one transaction a TASKS_A_TRANSACTION tasks, then a DeleteItem of the emptied item.
    Returns the tasks done."""
    on_request = on_request or (lambda *args: None)
    marker = _get(keys.terms_pending_key(product_id), on_request)
    if marker is None:
        return 0
    product = _get(keys.product_key(product_id), on_request)
    term_items: dict[str, Any] | None = None
    if product is not None and int(product.get("version", 0)) == int(marker["version"]):
        term_items = {i["PK"]: i for i in Product.from_item(product).term_items()}
    names, done, attempt = sorted(marker.get("tasks", {})), 0, 0
    while names:
        chunk = names[:TASKS_A_TRANSACTION]
        actions = _chunk(marker, chunk, term_items)
        refusal = transact_write(actions, request_token=client_request_token(
            "terms", product_id, marker["version"], term_items is None, *chunk))
        on_request("TransactWriteItems")
        if refusal is None or refusal.replay or refusal.failed(0):  # done (now, or by another finisher)
            names, done = names[len(chunk):], done + (len(chunk) if refusal is None else 0)
            continue
        if term_items is not None and refusal.failed(len(actions) - 1) and "ConditionCheck" in actions[-1]:
            term_items = None  # the product moved on meanwhile: its later write keeps its own terms
            continue
        attempt += 1
        if attempt >= ATTEMPTS:
            raise CatalogUnavailable("Other writes kept the search terms from being saved; run_stock_jobs will")
        pause(attempt, first=0.05, most=1.0)
    _delete_empty(product_id, on_request)
    return done


def _delete_empty(product_id: str, on_request: Any) -> None:
    """The item deleted once it has no task left (else a new edit's tasks came: the next run's)."""
    try:
        with translate_errors():
            client().delete_item(TableName=table_name(), Key=serialize(keys.terms_pending_key(product_id)),
                                 **expression(condition=Attr("tasks").size().eq(0)))
    except ClientError as exc:
        if error_code(exc) != "ConditionalCheckFailedException":
            raise
    on_request("DeleteItem")


def terms_pending_all(*, on_request: Any = None) -> int:
    """Every product's pending term tasks done (run_stock_jobs): one Query of the TERMS_PENDING partition
    (edits that crashed between their transactions: few), then terms_finish each. Returns the tasks done."""
    items = query_all(KeyRange(partition=keys.TERMS_PENDING_PK))
    return sum(terms_finish(product_id=i["productId"], on_request=on_request) for i in items)
