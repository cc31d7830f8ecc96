"""Fixtures of the shop's tests."""
import uuid

import psycopg
import pytest


@pytest.fixture
def shared_database(postgres_server):
    """A new, empty PostgreSQL database (a test migrates it with `manage.py migrate`, as a release would)."""
    name = f"shop_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = postgres_server.url_for(name)
    yield url
    with psycopg.connect(postgres_server.url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
