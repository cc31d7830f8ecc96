"""The staff editor's writes on moto (catalog/gateway/catalog/editor.py): create, edit, move, rename, price,
hide and show, each checked through the lists, counts, search and indexes; versions, history, request counts."""
from decimal import Decimal

import pytest

from catalog import gateway
from catalog.gateway import keys
from catalog.gateway.catalog.entities import Product
from catalog.gateway.dynamo.testing import count_requests
from tests.helpers import items_in_partition, level


def ids(page):
    return sorted(p.product_id for p in page.items)


def searched(query):
    return ids(gateway.products_search(query=query))


def counts():
    brands = {b.brand_id: dict(b.category_counts) for b in gateway.brands_all()}
    categories = {c.category_id: dict(c.brand_counts) for c in gateway.categories_all()}
    return brands, categories


def term_count(term):
    items = {i["SK"]: i for i in items_in_partition(keys.term_pk(term))}
    return int(items[keys.TERM_COUNT_LOW]["count"]) if keys.TERM_COUNT_LOW in items else 0


def update(product_id, who="ann", **changes):
    version = gateway.product_get(product_id=product_id, consistent=True).version
    return gateway.product_update(product_id=product_id, version=version, who=who, changes=changes)


def counted_update(product_id, **changes):
    """update(), with the requests of the editor's write alone (the test's own read of the version left out)."""
    version = gateway.product_get(product_id=product_id, consistent=True).version
    with count_requests() as counter:
        product = gateway.product_update(product_id=product_id, version=version, who="ann", changes=changes)
    return product, counter.operations


NEW = Product(product_id="n1", name="Cybertruck Mini", brand_id="3", category_id="1", price=Decimal("99.50"),
              stock_level=7, description="Small.", attributes={"doors": 2, "colour": "steel"})


def test_a_created_product_is_listed_counted_searchable_and_stocked(catalog):
    before_brands, _ = counts()
    with count_requests() as counter:
        gateway.product_create(product=NEW, who="ann")
    assert counter.operations == ["TransactWriteItems"]
    product = gateway.product_get(product_id="n1")
    assert product.name == "Cybertruck Mini" and product.attributes == {"doors": 2, "colour": "steel"}
    assert product.version == 1 and level("n1") == 7
    assert "n1" in ids(gateway.products_by_brand(brand_id="3"))
    assert "n1" in ids(gateway.products_by_category(category_id="1", sort="price"))
    assert searched("cyber") == ["n1"] and term_count("cyber") == 1
    brands, categories = counts()
    assert brands["3"]["1"] == before_brands["3"]["1"] + 1 and categories["1"]["3"] == 3
    assert [h.reason for h in gateway.stock_history(product_id="n1").items] == ["opening"]
    edit = gateway.product_history(product_id="n1").items[0]
    assert edit.who == "ann" and edit.changes["name"] == (None, "Cybertruck Mini")


def test_an_existing_id_or_an_unknown_brand_writes_nothing(catalog):
    with pytest.raises(gateway.ProductExists):
        gateway.product_create(product=Product(**{**NEW.__dict__, "product_id": "1"}), who="ann")
    with pytest.raises(gateway.InvalidInput):
        gateway.product_create(product=Product(**{**NEW.__dict__, "brand_id": "99"}), who="ann")
    with pytest.raises(gateway.NotFound):
        gateway.product_get(product_id="n1")
    assert gateway.product_get(product_id="1").name == "Model 3"
    assert keys.brand_key("99")["SK"] not in {i["SK"] for i in items_in_partition(keys.BRANDS_PK)}


def test_a_move_to_another_brand_and_category_moves_lists_counts_and_search(catalog):
    _, operations = counted_update("8", brand_id="3", category_id="10")
    assert operations == ["GetItem", "TransactWriteItems"]
    assert "8" not in ids(gateway.products_by_brand(brand_id="10"))
    assert "8" in ids(gateway.products_by_brand(brand_id="3", category_id="10"))
    assert "8" in ids(gateway.products_by_category(category_id="10", brand_id="3", sort="name"))
    assert "8" not in ids(gateway.products_by_category(category_id="1"))
    brands, categories = counts()
    assert "1" not in brands["10"] and brands["3"]["10"] == 2 and categories["10"] == {"3": 2, "10": 1}
    term = [i for i in items_in_partition(keys.term_pk("roadster")) if i.get("type") == "TERM"]
    assert [(t["brandId"], t["categoryId"]) for t in term] == [("3", "10")]


def test_a_rename_is_found_by_its_new_words_only(catalog):
    update("8", name="Acme Speedster")
    assert searched("speedster") == ["8"] and searched("roadster") == []
    assert term_count("roadster") == 0 and term_count("speedster") == 1
    assert searched("acme") == ["6", "7", "8"] and term_count("acme") == 3
    sorted_names = [p.name for p in gateway.products_by_brand(brand_id="10", sort="name").items]
    assert sorted_names == ["Acme Car Charger", "Acme Jet Boat", "Acme Speedster"]


def test_a_price_change_moves_the_price_orders_and_the_terms(catalog):
    update("7", price=Decimal("99999.00"))
    prices = [p.product_id for p in gateway.products_by_brand(brand_id="10", sort="-price").items]
    assert prices[0] == "7"
    assert gateway.products_search(query="charger", sort="-price").items[0].price == Decimal("99999.00")


def test_hiding_takes_it_out_of_every_list_count_and_search_and_showing_brings_it_back(catalog):
    brands_before, categories_before = counts()
    hidden, operations = counted_update("8", published=False)
    assert operations == ["GetItem", "TransactWriteItems"]
    assert not hidden.published and not gateway.product_get(product_id="8").published
    for page in (gateway.products_by_brand(brand_id="10"), gateway.products_by_brand(brand_id="10", sort="name"),
                 gateway.products_by_category(category_id="1"), gateway.products_by_category(category_id="1",
                                                                                             sort="-price"),
                 gateway.products_by_brand(brand_id="10", category_id="1", sort="price")):
        assert "8" not in ids(page)
    assert searched("roadster") == [] and term_count("roadster") == 0
    brands, categories = counts()
    assert "1" not in brands["10"] and categories["1"] == {"3": 2}
    assert ids(gateway.products_hidden()) == ["8"] and ids(gateway.products_hidden(brand_id="10")) == ["8"]
    assert ids(gateway.products_hidden(brand_id="1")) == []
    update("8", published=True)
    assert "8" in ids(gateway.products_by_brand(brand_id="10", sort="name"))
    assert "8" in ids(gateway.products_by_category(category_id="1"))
    assert searched("roadster") == ["8"] and term_count("roadster") == 1
    assert counts() == (brands_before, categories_before)
    assert ids(gateway.products_hidden()) == []


def test_an_import_keeps_a_hidden_product_hidden(catalog):
    from tests.helpers import seed, small_catalog

    update("8", published=False)
    data = small_catalog()
    data["products"][7]["name"] = "Acme Roadster II"
    seed(data)
    product = gateway.product_get(product_id="8")
    assert not product.published and product.name == "Acme Roadster II"
    assert "8" not in ids(gateway.products_by_brand(brand_id="10")) and searched("roadster") == []
    assert "1" not in counts()[0]["10"]


def test_the_second_of_two_editors_is_refused_and_told_the_new_values(catalog):
    shown = gateway.product_get(product_id="5")
    gateway.product_update(product_id="5", version=shown.version, who="ann", changes={"price": Decimal("1.00")})
    with pytest.raises(gateway.ProductChanged) as refused:
        gateway.product_update(product_id="5", version=shown.version, who="bob", changes={"price": Decimal("2.00")})
    assert refused.value.current.price == Decimal("1.00")
    assert gateway.product_get(product_id="5").price == Decimal("1.00")
    assert [e.who for e in gateway.product_history(product_id="5").items] == ["ann"]


def test_an_import_moves_the_version_on(catalog):
    from tests.helpers import seed

    shown = gateway.product_get(product_id="5")
    seed()
    with pytest.raises(gateway.ProductChanged):
        gateway.product_update(product_id="5", version=shown.version, who="ann", changes={"name": "Duo"})


def test_nothing_changed_writes_nothing(catalog):
    _, operations = counted_update("4", name="Pixel 9", price=Decimal("899.00"))
    assert operations == ["GetItem"]
    assert gateway.product_history(product_id="4").items == []


def test_history_is_newest_first_with_before_and_after(catalog):
    update("4", price=Decimal("799.00"), who="ann")
    update("4", description="A phone.", attributes={"storage_gb": 256}, who="bob")
    with count_requests() as counter:
        history = gateway.product_history(product_id="4").items
    assert counter.operations == ["Query"]
    assert [h.who for h in history] == ["bob", "ann"]
    assert history[0].changes == {"description": ("Phone.", "A phone."),
                                  "attributes": ({"storage_gb": 128, "color": "Obsidian"}, {"storage_gb": 256})}
    assert history[1].changes == {"price": (Decimal("899.00"), Decimal("799.00"))}


def test_a_long_name_whose_terms_do_not_fit_one_transaction_is_still_written_whole(catalog):
    name = " ".join(f"word{n}abcdefgh" for n in range(12))  # 12 words of 11 prefixes each: 132 terms
    update("6", name=name)
    assert searched("word11abcdefgh") == ["6"] and searched("jet") == []
    assert term_count("word0abcdefg") == 1 and term_count("wo") == 1 and term_count("jet") == 0


def test_brands_and_categories_are_created_and_renamed(catalog):
    gateway.brand_save(brand_id="20", name="Rivian", create=True)
    with pytest.raises(gateway.InvalidInput):
        gateway.brand_save(brand_id="20", name="Again", create=True)
    gateway.brand_save(brand_id="3", name="Tesla Motors", create=False)
    with pytest.raises(gateway.NotFound):
        gateway.category_save(category_id="99", name="Nothing", create=False)
    gateway.category_save(category_id="20", name="Trucks", create=True)
    names = {b.brand_id: (b.name, b.product_count) for b in gateway.brands_all()}
    assert names["20"] == ("Rivian", 0) and names["3"] == ("Tesla Motors", 3)
    assert {c.category_id: c.name for c in gateway.categories_all()}["20"] == "Trucks"


# --- on DynamoDB Local: its transactions' own rules (100 actions, one action an item, conditions) -------------

@pytest.mark.dynamodb_local
def test_on_dynamodb_local_create_move_rename_hide_and_show(local_catalog):
    gateway.product_create(product=NEW, who="ann")
    update("n1", brand_id="10", category_id="10", name="Acme Cyber Plug", price=Decimal("12.00"))
    assert "n1" in ids(gateway.products_by_brand(brand_id="10", category_id="10", sort="price"))
    assert "n1" not in ids(gateway.products_by_brand(brand_id="3"))
    assert searched("plug") == ["n1"] and searched("cybertruck") == [] and term_count("cybertruck") == 0
    brands, categories = counts()
    assert brands["10"]["10"] == 2 and brands["3"] == {"1": 2, "10": 1} and categories["10"] == {"3": 1, "10": 2}
    update("n1", published=False)
    assert searched("plug") == [] and "n1" not in ids(gateway.products_by_category(category_id="10", sort="name"))
    assert counts()[0]["10"]["10"] == 1 and ids(gateway.products_hidden(brand_id="10")) == ["n1"]
    update("n1", published=True)
    assert searched("plug") == ["n1"] and counts()[0]["10"]["10"] == 2
    name = " ".join(f"word{n}abcdefgh" for n in range(12))
    update("n1", name=name)
    assert searched("word11abcdefg") == ["n1"] and searched("plug") == [] and term_count("word5") == 1
    assert [len(e.changes) for e in gateway.product_history(product_id="n1").items] == [1, 1, 1, 4, 8]


@pytest.mark.dynamodb_local
def test_on_dynamodb_local_two_editors_at_once_one_wins(local_catalog):
    import threading

    shown = gateway.product_get(product_id="4")
    outcomes, start = [], threading.Barrier(2)

    def edit(who, price):
        start.wait()
        try:
            gateway.product_update(product_id="4", version=shown.version, who=who, changes={"price": Decimal(price)})
            outcomes.append(("saved", who))
        except gateway.ProductChanged as exc:
            outcomes.append(("refused", exc.current.price))

    threads = [threading.Thread(target=edit, args=args) for args in (("ann", "1.00"), ("bob", "2.00"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    saved = [o for o in outcomes if o[0] == "saved"]
    refused = [o for o in outcomes if o[0] == "refused"]
    assert len(saved) == 1 and len(refused) == 1
    winner_price = {"ann": Decimal("1.00"), "bob": Decimal("2.00")}[saved[0][1]]
    assert refused[0][1] == winner_price == gateway.product_get(product_id="4").price
    assert [e.who for e in gateway.product_history(product_id="4").items] == [saved[0][1]]


def test_terms_left_pending_by_a_failure_between_transactions_are_finished_once(catalog, monkeypatch):
    from catalog.gateway.catalog import pending_terms

    name = " ".join(f"word{n}abcdefgh" for n in range(12))  # 132 terms: more than one transaction takes
    real, sent = pending_terms.transact_write, []

    def crash_after_one_chunk(actions, **kwargs):
        if sent:
            raise gateway.CatalogUnavailable("DynamoDB went away")
        sent.append(actions)
        return real(actions, **kwargs)

    monkeypatch.setattr(pending_terms, "transact_write", crash_after_one_chunk)
    update("6", name=name)  # the edit stands (logged); some of its terms are still tasks
    monkeypatch.undo()
    assert gateway.product_get(product_id="6").name == name
    assert items_in_partition(keys.TERMS_PENDING_PK) != []
    with count_requests() as counter:
        done = pending_terms.terms_pending_all()
    assert done > 0 and items_in_partition(keys.TERMS_PENDING_PK) == []
    # the partition (Query), the item and the product (GetItem), a transaction a chunk, the emptied item deleted
    assert counter.operations[:3] == ["Query", "GetItem", "GetItem"] and counter.operations[-1] == "DeleteItem"
    assert pending_terms.terms_pending_all() == 0  # again: nothing more
    assert searched("word11abcdefgh") == ["6"] and searched("jet") == []
    assert term_count("word0abcdefg") == 1 and term_count("wo") == 1 and term_count("jet") == 0


def test_the_next_edit_finishes_pending_terms_first(catalog, monkeypatch):
    from catalog.gateway.catalog import editor

    name = " ".join(f"word{n}abcdefgh" for n in range(12))
    monkeypatch.setattr(editor, "terms_finish", lambda **kwargs: 0)  # the edit stops right after its transaction
    update("6", name=name)
    monkeypatch.undo()
    assert term_count("wo") == 0  # its counts are among the tasks
    update("6", name="Plain jet")
    assert items_in_partition(keys.TERMS_PENDING_PK) == []
    assert searched("word11abcdefgh") == [] and searched("plain") == ["6"]
    assert term_count("wo") == 0 and term_count("word0abcdefg") == 0 and term_count("plain") == 1
    assert term_count("jet") == 1


@pytest.mark.dynamodb_local
def test_on_dynamodb_local_a_long_names_pending_terms_are_written_once(local_catalog):
    name = " ".join(f"word{n}abcdefgh" for n in range(12))  # 132 terms: the TERMS_PENDING item and its chunks
    update("6", name=name)
    assert items_in_partition(keys.TERMS_PENDING_PK) == []
    assert searched("word11abcdefgh") == ["6"] and term_count("wo") == 1 and term_count("jet") == 0
    update("6", name="Plain jet")
    assert searched("word11abcdefgh") == [] and term_count("wo") == 0 and term_count("jet") == 1
