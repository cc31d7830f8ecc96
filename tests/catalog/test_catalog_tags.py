"""{% cached_url %}: the links {% url %} would give, under any script prefix."""
import pytest
from django.template import engines
from django.urls import clear_script_prefix, set_script_prefix


@pytest.fixture
def render():
    def render(source):
        return engines["django"].from_string(source).render()

    yield render
    clear_script_prefix()


@pytest.mark.parametrize("source", ["'home'", "'cart'", "'search'", "'brand' '3'", "'product' 'a b&é'"])
def test_cached_url_is_what_url_gives(render, source):
    assert render("{% cached_url " + source + " %}") == render("{% url " + source + " %}")


def test_cached_url_follows_the_script_prefix(render):
    assert render("{% cached_url 'cart' %}") == "/cart/"
    set_script_prefix("/shop/")  # served under a path (SCRIPT_NAME)
    assert render("{% cached_url 'cart' %} {% cached_url 'brand' 3 %}") == "/shop/cart/ /shop/brands/3/"
