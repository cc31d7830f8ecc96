"""The shop's words for what the gateway returns as data: a purchase line's problem (LineProblem)."""
from datetime import UTC, datetime, timedelta

from django.utils.timesince import timesince

from catalog import availability
from catalog.gateway import LineProblem
from common.numbers import euro


def line_problem_text(problem: LineProblem) -> str:
    """What the shopper is told of one line they cannot buy (or hold) as it is."""
    name, kind = problem.name, problem.kind
    if kind == LineProblem.GONE:
        return f"{name} is no longer available."
    if kind == LineProblem.SHORT:
        return f"{availability.shortage(name, problem.available)}."
    if kind == LineProblem.LIMIT:
        return (f"While you pay, we hold at most {problem.available} of {name} for one shopper; "
                "please lower the quantity in your cart.")
    if kind == LineProblem.TOTAL:
        return (f"While you pay, we hold at most {problem.available} units for one shopper over all products; "
                f"please lower the quantities in your cart or buy some of them first ({name} is not held).")
    if kind == LineProblem.COOLING:
        return f"{name} cannot be held for you again yet; you can still buy it without a hold."
    if kind == LineProblem.ENDED:
        start = datetime.fromtimestamp(0, UTC)
        longest = timesince(start, start + timedelta(seconds=problem.available))
        return (f"Your hold on {name} ended: we hold units for one shopper at most {longest}, however "
                "often the checkout is opened. They are back on sale: you can still buy them without a hold while "
                "they are there, and hold them again after a pause.")
    return f"The price of {name} changed to {euro(problem.price)}."
