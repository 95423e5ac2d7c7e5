"""Tests of `knowledge_base.py`: `Articles`, `Article/{id}`, `POST /article`,
`TicketTemplate` and `CommentTemplates`."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.sandbox import records
from reconciler.sandbox.helpdesk.tickets import tag_id
from tests.sandbox.conftest import Api
from tests.sandbox.test_tickets import OPT_INT, OPT_STR, World, assert_shape, build_world

ARTICLE_FIELDS: dict[str, Any] = {
    "ArticleId": int,
    "Subject": str,
    "Body": str,
    "ForTechsOnly": bool,
    "CategoryID": int,
    "CategoryName": str,
    "CategoryNotes": OPT_STR,
    "TagString": str,
    "UrlId": OPT_STR,
    "DateCreated": str,
    "LastUpdated": str,
    "Url": str,
    "Attachments": list,
    "Tags": (list, type(None)),
}
LISTED_FIELDS = {**ARTICLE_FIELDS, "Body": type(None)}
KB_CATEGORY_FIELDS: dict[str, Any] = {
    "CategoryID": int,
    "Name": str,
    "SectionID": OPT_INT,
    "Section": OPT_STR,
    "NameWithSection": str,
    "ForTechsOnly": bool,
    "FromAddress": OPT_STR,
    "TicketCount": int,
    "ForSpecificUsers": bool,
    "KBOnly": bool,
}
TEMPLATE_FIELDS: dict[str, Any] = {
    "TemplateId": int,
    "Name": str,
    "Body": str,
    "CategoryIDs": list,
    "GroupID": OPT_INT,
    "GroupName": OPT_STR,
}
BASE = "http://sandbox.test/helpdesk/api"


@pytest.fixture
def w(api: Api) -> World:
    return build_world(api)


def new_article(api: Api, category_id: int, **form: Any) -> int:
    form = {"subject": "How to print", "body": "Press <b>Print</b>.", **form}
    resp = api.post("article", categoryId=category_id, **form)
    assert resp.status_code == 200, resp.text
    return int(resp.json()["id"])


def stored_article(w: World, category_id: int, **kw: Any) -> int:
    rec = records.article(
        category_id=category_id,
        subject=kw.pop("subject", "Stored"),
        body=kw.pop("body", "Text"),
        now="2024-05-01T10:00:00.000Z",
        **kw,
    )
    return int(w.store.insert("articles", rec)["id"])


def listed_ids(resp: Any) -> list[int]:
    assert resp.status_code == 200, resp.text
    return [a["ArticleId"] for a in resp.json()["Articles"]]


# -- articles ------------------------------------------------------------------------


def test_create_and_read_an_article(w: World) -> None:
    api = w.api
    aid = new_article(api, w.kb, forTechsOnly="false")
    found = api.get(f"Article/{aid}")
    assert found.status_code == 200
    article = found.json()
    assert_shape(article, ARTICLE_FIELDS)
    rec = w.store.get("articles", aid)
    assert rec is not None
    assert article == {
        "ArticleId": aid,
        "Subject": "How to print",
        "Body": "Press <b>Print</b>.",
        "ForTechsOnly": False,
        "CategoryID": w.kb,
        "CategoryName": "Docs",
        "CategoryNotes": None,
        "TagString": "",
        "UrlId": None,
        # Knowledge base timestamps carry no zone suffix (the spec).
        "DateCreated": rec["date_created"].removesuffix("Z"),
        "LastUpdated": rec["last_updated"].removesuffix("Z"),
        "Url": f"{BASE}/Article/{aid}",
        "Attachments": [],
        "Tags": [],
    }
    assert not article["DateCreated"].endswith("Z")
    # The id as a parameter works too, and the Url answers the article.
    assert api.get("Article", id=aid).json() == article
    assert api.client.get(article["Url"], headers=api.headers()).json() == article
    techs = new_article(api.as_("tina"), w.hardware, forTechsOnly="True")
    assert api.get(f"Article/{techs}").json()["ForTechsOnly"] is True


def test_article_tags(w: World) -> None:
    api = w.api
    first = stored_article(w, w.kb, tags=["Printer", "howto"], url_id="how-to-print")
    stored_article(w, w.kb, tags=["printer"])
    article = api.get(f"Article/{first}").json()
    assert (article["TagString"], article["UrlId"]) == ("Printer, howto", "how-to-print")
    assert article["Tags"] == [
        {"TagID": tag_id("printer"), "Name": "Printer", "TagCount": 2},
        {"TagID": tag_id("howto"), "Name": "howto", "TagCount": 1},
    ]
    assert api.get("Articles").json()["Tags"] == [
        {"TagID": tag_id("howto"), "Name": "howto", "TagCount": 1},
        {"TagID": tag_id("printer"), "Name": "Printer", "TagCount": 2},
    ]


def test_articles_listing(w: World) -> None:
    api = w.api
    kb = new_article(api, w.kb)
    hw = stored_article(w, w.hardware, tags=["paper"])
    w.ticket(user="ursula", category=w.hardware)
    w.ticket(user="carl", category=w.hardware)
    listing = api.get("Articles").json()
    assert set(listing) == {"Articles", "Categories", "Tags"}
    assert [a["ArticleId"] for a in listing["Articles"]] == [kb, hw]
    for item in listing["Articles"]:
        assert_shape(item, LISTED_FIELDS)
    assert listing["Articles"][1]["Tags"] == [
        {"TagID": tag_id("paper"), "Name": "paper", "TagCount": 1}
    ]
    # Categories: as `categories`, with the knowledge base fields.
    plain = api.get("categories").json()
    categories = listing["Categories"]
    for item in categories:
        assert_shape(item, KB_CATEGORY_FIELDS)
    assert [{k: c[k] for k in plain[0]} for c in categories] == plain
    by_name = {c["Name"]: c for c in categories}
    assert (by_name["Hardware"]["TicketCount"], by_name["Hardware"]["KBOnly"]) == (2, False)
    assert (by_name["Docs"]["TicketCount"], by_name["Docs"]["KBOnly"]) == (0, True)
    assert not any(c["ForSpecificUsers"] for c in categories)
    # A plain user counts only the tickets they may see.
    mine = api.as_("ursula").get("Articles").json()["Categories"]
    assert next(c for c in mine if c["Name"] == "Hardware")["TicketCount"] == 1
    # categoryId keeps one category; 0 means all.
    assert listed_ids(api.get("Articles", categoryId=w.hardware)) == [hw]
    assert listed_ids(api.get("Articles", categoryId=w.software)) == []
    assert listed_ids(api.get("Articles", categoryId=0)) == [kb, hw]
    only_hw = api.get("Articles", categoryId=w.hardware).json()
    assert [t["Name"] for t in only_hw["Tags"]] == ["paper"]
    assert len(only_hw["Categories"]) == len(categories)
    assert api.get("Articles", categoryId=999).status_code == 400
    assert api.get("Articles", categoryId="x").status_code == 400


def test_articles_for_technicians_only(w: World) -> None:
    api = w.api
    public = stored_article(w, w.hardware)
    techs = stored_article(w, w.hardware, for_techs_only=True)
    internal = stored_article(w, w.internal)  # a category for technicians only
    ursula, tina = api.as_("ursula"), api.as_("tina")
    assert listed_ids(api.get("Articles")) == [public, techs, internal]
    assert listed_ids(tina.get("Articles")) == [public, techs, internal]
    assert listed_ids(ursula.get("Articles")) == [public]
    assert "Internal" not in [c["Name"] for c in ursula.get("Articles").json()["Categories"]]
    assert ursula.get(f"Article/{public}").status_code == 200
    assert ursula.get(f"Article/{techs}").status_code == 403
    assert ursula.get(f"Article/{internal}").status_code == 403
    # A category technician reads those of their categories only.
    w.grant("tina", w.software)
    assert listed_ids(tina.get("Articles")) == [public]
    assert tina.get(f"Article/{techs}").status_code == 403


def test_article_errors(w: World) -> None:
    api = w.api
    assert api.get("Article").status_code == 400
    assert api.get("Article/abc").status_code == 400
    assert api.get("Article/999").status_code == 404
    assert api.get("Article", id=999).status_code == 404


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({"subject": "S", "body": "B"}, 400),
        ({"categoryId": "x", "subject": "S", "body": "B"}, 400),
        ({"categoryId": 999, "subject": "S", "body": "B"}, 400),
        ({"categoryId": "HW", "body": "B"}, 400),
        ({"categoryId": "HW", "subject": " ", "body": "B"}, 400),
        ({"categoryId": "HW", "subject": "S"}, 400),
        ({"categoryId": "HW", "subject": "S", "body": ""}, 400),
        ({"categoryId": "HW", "subject": "S", "body": "B", "forTechsOnly": "maybe"}, 400),
    ],
)
def test_create_article_errors(w: World, form: dict[str, Any], status: int) -> None:
    data = {k: w.hardware if v == "HW" else v for k, v in form.items()}
    resp = w.api.post("article", **data)
    assert resp.status_code == status, resp.text
    assert w.store.rows("articles") == []


def test_create_article_permissions(w: World) -> None:
    api = w.api
    form = {"categoryId": w.hardware, "subject": "S", "body": "B"}
    assert api.as_("ursula").post("article", **form).status_code == 403
    w.grant("tina", w.software)
    assert api.as_("tina").post("article", **form).status_code == 403
    assert w.store.rows("articles") == []
    new_article(api.as_("tina"), w.software)


# -- TicketTemplate ------------------------------------------------------------------


def test_ticket_template(w: World) -> None:
    api = w.api
    assert api.get("TicketTemplate", categoryId=w.hardware).json() is None
    template = {"subject": "Printer problem", "body": "<p>Model:</p>"}
    w.store.update("categories", w.hardware, template=template)
    expected = {"Subject": "Printer problem", "Body": "<p>Model:</p>"}
    assert api.as_("ursula").get("TicketTemplate", categoryId=w.hardware).json() == expected
    w.store.update("categories", w.internal, template=template)
    assert api.as_("tina").get("TicketTemplate", categoryId=w.internal).json() == expected
    assert api.as_("ursula").get("TicketTemplate", categoryId=w.internal).status_code == 403
    assert api.get("TicketTemplate").status_code == 400
    assert api.get("TicketTemplate", categoryId="x").status_code == 400
    assert api.get("TicketTemplate", categoryId=999).status_code == 404


# -- CommentTemplates ----------------------------------------------------------------


def test_comment_templates(w: World) -> None:
    api = w.api
    assert api.get("CommentTemplates").json() == []
    group = w.store.insert("comment_template_groups", records.named("Printing"))["id"]

    def template(name: str, **kw: Any) -> int:
        rec = records.comment_template(name, f"{name} body", **kw)
        return int(w.store.insert("comment_templates", rec)["id"])

    everywhere = template("Thanks")
    printer = template("Reboot", category_ids=[w.hardware], group_id=group)
    software = template("Reinstall", category_ids=[w.software, w.cleaning])
    items = api.get("CommentTemplates").json()
    for item in items:
        assert_shape(item, TEMPLATE_FIELDS)
    assert items[1] == {
        "TemplateId": printer,
        "Name": "Reboot",
        "Body": "Reboot body",
        "CategoryIDs": [w.hardware],
        "GroupID": group,
        "GroupName": "Printing",
    }
    assert (items[0]["GroupID"], items[0]["GroupName"], items[0]["CategoryIDs"]) == (
        None,
        None,
        [],
    )
    assert [i["TemplateId"] for i in items] == [everywhere, printer, software]
    assert [i["TemplateId"] for i in api.get("CommentTemplates", categoryId=0).json()] == [
        everywhere,
        printer,
        software,
    ]
    by_category = api.as_("tina").get("CommentTemplates", categoryId=w.hardware).json()
    assert [i["TemplateId"] for i in by_category] == [everywhere, printer]
    cleaning = api.get("CommentTemplates", categoryId=w.cleaning).json()
    assert [i["TemplateId"] for i in cleaning] == [everywhere, software]
    assert api.get("CommentTemplates", categoryId=999).status_code == 400
    assert api.get("CommentTemplates", categoryId="x").status_code == 400
    assert api.as_("ursula").get("CommentTemplates").status_code == 403
