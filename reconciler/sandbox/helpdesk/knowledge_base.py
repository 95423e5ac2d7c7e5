"""Knowledge base and reusable texts: `Articles`, `Article/{id}` (GET), `article` (POST),
`TicketTemplate` and `CommentTemplates`.

Articles live in the `articles` table (`records.article`), ticket templates on their
category (`template`), canned responses in `comment_templates` with their groups in
`comment_template_groups`. Only `POST /article` writes through the API; templates come
from the store (seeds, tests).

Permissions (the spec's knowledge base table has no permission column):
- An article is readable by a caller who can see its category (`categories.py`); one
  for technicians only also needs a technician of its category. Others get 403.
- `POST /article`: a technician of the category (writing the knowledge base is staff
  work; a plain user gets 403 from the permission level).
- `TicketTemplate`: any user (the spec), for a category the caller can see (403).
- `CommentTemplates`: a technician (canned responses are for agents; the spec says
  "caller").

Decisions where the spec is silent:
- `Articles` lists the readable articles, by id, with `Body` null; `categoryId` (0 means
  all) keeps those of one category. `Categories` is every category the caller can see,
  ordered as `categories`, with `TicketCount` (the tickets the caller may see),
  `ForSpecificUsers` (always false: not modelled) and `KBOnly`. `Tags` holds the tags of
  the listed articles with their counts, by name.
- An unknown `categoryId` is 400 for `Articles`, `POST /article` and `CommentTemplates`
  (a referenced object), and 404 for `TicketTemplate` (the object asked for).
- Article timestamps have no zone suffix (the spec: "some knowledge base timestamps have
  no zone suffix"); they are UTC. `TagString` joins the tags with ", "; `Tags` holds Tag
  objects (as on tickets, counted over the readable articles); `CategoryNotes` is null
  (categories have no notes); `Attachments` is empty (the API cannot attach files to
  articles); `Url` is this API's `Article/{id}` address; `UrlId` is null unless stored.
- `POST /article` needs a non-empty subject and body; `forTechsOnly` defaults to false.
- `CommentTemplates`: a template with no categories applies to every category; by id.
"""

from __future__ import annotations

from typing import Any

from reconciler.sandbox import records
from reconciler.sandbox.errors import HttpError
from reconciler.sandbox.helpdesk.categories import (
    can_see_category,
    categories,
    is_category_tech,
)
from reconciler.sandbox.helpdesk.registry import Ctx, Permission, endpoint
from reconciler.sandbox.helpdesk.ticket_files import (
    api_url,
)
from reconciler.sandbox.helpdesk.tickets import (
    required_int,
    required_text,
    tag_id,
    visible_to,
)
from reconciler.sandbox.store import Record, Store


def may_read(store: Store, user: Record, article: Record) -> bool:
    category = store.get("categories", article["category_id"])
    if category is not None and not can_see_category(store, user, category):
        return False
    return not article["for_techs_only"] or is_category_tech(store, user, article["category_id"])


def kb_time(stamp: str) -> str:
    return stamp.removesuffix("Z")


def tag_counts(articles: list[Record]) -> dict[str, tuple[str, int]]:
    """Case-folded tag -> (the first spelling met, how many articles carry it)."""
    counts: dict[str, tuple[str, int]] = {}
    for article in articles:
        for tag in article["tags"]:
            name, count = counts.get(tag.casefold(), (tag, 0))
            counts[tag.casefold()] = (name, count + 1)
    return counts


def tag_object(name: str, count: int) -> dict[str, Any]:
    return {"TagID": tag_id(name), "Name": name, "TagCount": count}


def article_item(
    ctx: Ctx, article: Record, counts: dict[str, tuple[str, int]], with_body: bool
) -> dict[str, Any]:
    category = ctx.store.get("categories", article["category_id"])
    tags = [(t, counts.get(t.casefold(), (t, 1))[1]) for t in article["tags"]]
    return {
        "ArticleId": article["id"],
        "Subject": article["subject"],
        "Body": article["body"] if with_body else None,
        "ForTechsOnly": article["for_techs_only"],
        "CategoryID": article["category_id"],
        "CategoryName": category["name"] if category else "",
        "CategoryNotes": None,
        "TagString": ", ".join(article["tags"]),
        "UrlId": article["url_id"],
        "DateCreated": kb_time(article["date_created"]),
        "LastUpdated": kb_time(article["last_updated"]),
        "Url": api_url(ctx, f"Article/{article['id']}"),
        "Attachments": [],
        "Tags": [tag_object(name, count) for name, count in tags],
    }


def referenced_category(ctx: Ctx, category_id: int) -> Record:
    category = ctx.store.get("categories", category_id)
    if category is None:
        raise HttpError(400, f"Category {category_id} does not exist")
    return category


def readable_articles(ctx: Ctx) -> list[Record]:
    return [a for a in ctx.store.rows("articles") if may_read(ctx.store, ctx.caller, a)]


async def kb_categories(ctx: Ctx) -> list[dict[str, Any]]:
    """The categories of `categories`, with the knowledge base listing's fields."""
    seen = visible_to(ctx.store, ctx.caller)
    counts: dict[int, int] = {}
    for ticket in ctx.store.rows("tickets"):
        if seen(ticket):
            counts[ticket["category_id"]] = counts.get(ticket["category_id"], 0) + 1
    items: list[dict[str, Any]] = await categories(ctx)
    for item in items:
        category = ctx.store.get("categories", item["CategoryID"])
        item["TicketCount"] = counts.get(item["CategoryID"], 0)
        item["ForSpecificUsers"] = False
        item["KBOnly"] = bool(category and category["kb_only"])
    return items


@endpoint("Articles")
async def articles(ctx: Ctx) -> Any:
    category_id = ctx.params.integer("categoryId") or None  # 0 means all
    if category_id is not None:
        referenced_category(ctx, category_id)
    listed = [
        a for a in readable_articles(ctx) if category_id is None or a["category_id"] == category_id
    ]
    counts = tag_counts(listed)
    return {
        "Articles": [article_item(ctx, a, counts, with_body=False) for a in listed],
        "Categories": await kb_categories(ctx),
        "Tags": [tag_object(n, c) for n, c in sorted(counts.values(), key=_by_name)],
    }


def _by_name(tag: tuple[str, int]) -> tuple[str, str]:
    return tag[0].casefold(), tag[0]


@endpoint("Article")
async def article(ctx: Ctx) -> Any:
    found = ctx.record("articles", ctx.id_param("id", "articleId"), "Article")
    if not may_read(ctx.store, ctx.caller, found):
        raise HttpError(403, f"Access denied: you may not read article {found['id']}")
    return article_item(ctx, found, tag_counts(readable_articles(ctx)), with_body=True)


@endpoint("article", methods=("POST",), permission=Permission.TECH)
async def create_article(ctx: Ctx) -> Any:
    category = referenced_category(ctx, required_int(ctx, "categoryId"))
    if not is_category_tech(ctx.store, ctx.caller, category["id"]):
        raise HttpError(403, f"Access denied: you are no technician of category {category['id']}")
    rec = records.article(
        category_id=category["id"],
        subject=required_text(ctx, "subject"),
        body=required_text(ctx, "body"),
        now=ctx.state.timestamp(),
        for_techs_only=bool(ctx.params.boolean("forTechsOnly", default=False)),
    )
    return {"id": ctx.store.insert("articles", rec)["id"]}


@endpoint("TicketTemplate")
async def ticket_template(ctx: Ctx) -> Any:
    category = ctx.record("categories", ctx.id_param("categoryId", "id"), "Category")
    if not can_see_category(ctx.store, ctx.caller, category):
        raise HttpError(403, f"Access denied: category {category['id']} is for technicians only")
    template = category["template"]
    if template is None:
        return None
    return {"Subject": template["subject"], "Body": template["body"]}


def template_item(store: Store, template: Record) -> dict[str, Any]:
    group_id = template["group_id"]
    group = store.get("comment_template_groups", group_id) if group_id is not None else None
    return {
        "TemplateId": template["id"],
        "Name": template["name"],
        "Body": template["body"],
        "CategoryIDs": list(template["category_ids"]),
        "GroupID": group["id"] if group else None,
        "GroupName": group["name"] if group else None,
    }


@endpoint("CommentTemplates", permission=Permission.TECH)
async def comment_templates(ctx: Ctx) -> Any:
    category_id = ctx.params.integer("categoryId") or 0  # 0 means all
    if category_id:
        referenced_category(ctx, category_id)
    return [
        template_item(ctx.store, t)
        for t in ctx.store.rows("comment_templates")
        if not category_id or not t["category_ids"] or category_id in t["category_ids"]
    ]
