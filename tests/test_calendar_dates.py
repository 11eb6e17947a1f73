"""A date the schema's pattern accepts but no calendar has (2008-02-30) is EXL003:
the pattern bounds each part, not the days of each month."""
from __future__ import annotations

import pytest

from linter.loading import load_text
from linter.schema import date_paths, validate_document

STORE = """apiVersion: exlint/v1
kind: PublicFolderDatabase
metadata: {{name: PFDB-A}}
spec:
  server: EX10-A
  hierarchy: Public Folders
  emailAddress: a@contoso.com
  created: {created}
"""


def _exl003(created: str) -> list[str]:
    loaded = load_text(STORE.format(created=created), "stores/a.yaml")
    findings, sound = validate_document(loaded.documents[0])
    assert sound
    return [f"{f.line}:{f.column} {f.message}" for f in findings if f.rule == "EXL003"]


@pytest.mark.parametrize("created", ["2008-02-30", "'2007-02-29'", "2010-04-31T10:00:00Z", "'2010-06-31 09:30:00+01:00'"])
def test_a_date_no_calendar_has_is_reported_where_it_is_written(created):
    found = _exl003(created)
    assert len(found) == 1 and found[0].startswith("8:12 ") and "no calendar date" in found[0], found


@pytest.mark.parametrize("created", ["2008-02-29", "'2010-12-31'", "2010-04-30T23:59:59Z"])
def test_real_dates_pass(created):
    assert _exl003(created) == []


def test_every_iso_date_of_the_schemas_is_checked():
    assert date_paths("PublicFolderDatabase") == (("spec", "created"),)


def test_a_null_where_a_value_is_required_says_null_once_and_what_to_do():
    loaded = load_text(STORE.format(created="2008-02-28").replace("  server: EX10-A", "  server: null"),
                       "stores/a.yaml")
    findings, _ = validate_document(loaded.documents[0])
    messages = [f.message for f in findings if f.rule == "EXL003"]
    assert messages == ["spec.server must be a string, not null (leave the field out when it has no value)"]
