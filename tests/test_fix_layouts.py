"""`--fix` on layouts the realistic fixtures of test_fix.py do not have: tabs
that `check` accepts, multi-line flow lists with comments, keys holding '.',
files without a final line break. Each was a bug: a traceback, a comment moved
to another entry, a rename silently not offered, a line break added."""
from __future__ import annotations

import yaml
import pytest

from linter.findings import Entity, Finding
from linter.fixing import engine, yamltext
from linter.fixing.yamltext import YamlText, apply_edits
from linter.loading import load_text
from test_fix import estate, findings, invoke, place  # noqa: F401 - estate: the sample estate as the working directory

SALES = "folders/sales.yaml"
DUPLICATE = "[PFDB-EX10-LON-01, PFDB-EX10-PAR-01, pfdb-ex10-lon-01, PFDB-EX07-FRA-01]"
DEDUPLICATED = "[PFDB-EX10-LON-01, PFDB-EX10-PAR-01, PFDB-EX07-FRA-01]"
BLOCK_DUPLICATE = "    - PFDB-EX10-PAR-01   # re-added by the 2022 import script\n"  # the fixture's other REP005


# -- tabs: --fix reads what check reads ----------------------------------------------------

TABS = {
    "before a comment": ("apiVersion: exlint/v1\n", "apiVersion: exlint/v1\t# tab before this comment\n"),
    "in a flow mapping": ("  labels: {owner: sales-ops}\n", "  labels: {owner:\tsales-ops}\n"),
    "after a flow list": (f"  replicas: {DUPLICATE}\n", f"  replicas: {DUPLICATE}\t# CHG-2021-0142\n"),
}


@pytest.mark.parametrize("where", sorted(TABS))
@pytest.mark.parametrize("mode", ["--fix", "--diff"])
def test_a_tab_that_check_accepts_is_fixed_around(estate, where, mode):
    sales = place(estate, "rep005", SALES)
    old, new = TABS[where]
    text = sales.read_text().replace(old, new, 1)
    sales.write_text(text)
    assert invoke("check", SALES).exit_code == 0, "check accepts the file"
    result = invoke("check", mode, SALES)  # invoke fails on a traceback
    expected = text.replace(DUPLICATE, DEDUPLICATED).replace(BLOCK_DUPLICATE, "")
    assert " 2 finding(s) in 1 file(s)" in result.stderr  # fixed, or would fix
    if mode == "--fix":
        assert sales.read_text() == expected
    else:
        assert sales.read_text() == text
        assert f"-  replicas: {DUPLICATE}" in result.stdout


def test_a_loader_stricter_than_check_gives_a_reason_not_a_traceback(estate, monkeypatch):
    sales = place(estate, "rep005", SALES)
    text = sales.read_text().replace("apiVersion: exlint/v1\n", "apiVersion: exlint/v1\t# tab\n", 1)
    sales.write_text(text)
    monkeypatch.setattr(yamltext, "CHECK_LOADER", yaml.SafeLoader)  # the pure-Python scanner refuses the tab
    result = invoke("check", "--fix", SALES)
    assert sales.read_text() == text
    assert "REP005 not fixed: the file could not be read again for editing" in result.stderr
    assert [f["rule"] for f in findings(SALES)] == ["REP005", "REP005"]  # still reported


def test_an_empty_document_does_not_stop_the_fix(estate):
    sales = place(estate, "rep005", SALES)
    text = sales.read_text().replace("---\n", "---\n# retired: /Sales/Old (CHG-2020-0001)\n---\n", 1)
    sales.write_text(text)
    result = invoke("check", "--fix", SALES)
    assert "fixed 2 finding(s) in 1 file(s)" in result.stderr
    assert sales.read_text().count("# retired: /Sales/Old") == 1


# -- removing entries of multi-line flow lists -----------------------------------------------

def remove(text: str, key: str, indices: set[int]) -> str:
    yt = YamlText(text)
    doc = yt.documents[0]
    chain, node, rest = yt.walk(doc, (key,))
    assert not rest
    return apply_edits(text, yt.remove_entries(doc, node, indices, chain[-1]))


FLOW = {
    "comments": "replicas: [\n  A,   # a\n  B,   # b\n  C    # c\n]\n",
    "comments, trailing comma": "replicas: [\n  A,   # a\n  B,   # b\n  C,   # c\n]\n",
    "no comments": "replicas: [\n  A,\n  B,\n  C\n]\n",
    "no comments, trailing comma": "replicas: [\n  A,\n  B,\n  C,\n]\n",
    "CRLF": "replicas: [\r\n  A,   # a\r\n  B,   # b\r\n  C    # c\r\n]\r\n",
    "mapping": "replicas: {\n  a: 1,   # a\n  b: 2,   # b\n  c: 3    # c\n}\n",
}


@pytest.mark.parametrize("position", [0, 1, 2], ids=["first", "middle", "last"])
@pytest.mark.parametrize("layout", sorted(FLOW))
def test_an_entry_alone_on_its_line_loses_only_its_line(layout, position):
    text = FLOW[layout]
    lines = text.splitlines(keepends=True)
    after = remove(text, "replicas", {position})
    assert after == "".join(lines[:position + 1] + lines[position + 2:])  # line 0 is `replicas: [`
    data = yaml.load(text, Loader=yaml.CSafeLoader)["replicas"]
    kept = yaml.load(after, Loader=yaml.CSafeLoader)["replicas"]
    if isinstance(data, dict):
        assert kept == {k: v for i, (k, v) in enumerate(data.items()) if i != position}
    else:
        assert kept == [v for i, v in enumerate(data) if i != position]


SHARED = {
    # (text, indices): the text afterwards; the comments of the entries that stay stay on their lines
    ("replicas: [\n  A,  # a\n  B,  # b\n  C]  # c\n", (2,)): "replicas: [\n  A,  # a\n  B,  # b\n  ]  # c\n",
    ("replicas: [\n  A,  # a\n  B,  # b\n  C]  # c\n", (1, 2)): "replicas: [\n  A,  # a\n  ]  # c\n",
    ("replicas: [A,  # a\n  B,  # b\n  C]\n", (2,)): "replicas: [A,  # a\n  B,  # b\n  ]\n",
    ("replicas: [A,  # a\n  B,  # b\n  C]\n", (0,)): "replicas: [  # a\n  B,  # b\n  C]\n",
    ("replicas: [A, B,  # ab\n  C, D]  # cd\n", (1,)): "replicas: [A,   # ab\n  C, D]  # cd\n",
    ("replicas: [A, B,  # ab\n  C, D]  # cd\n", (1, 2)): "replicas: [A,   # ab\n  D]  # cd\n",
    ("replicas: [A, B,  # ab\n  C, D]  # cd\n", (3,)): "replicas: [A, B,  # ab\n  C]  # cd\n",
    ("replicas: [ A\n  , B   # b\n  , C ]\n", (1,)): "replicas: [ A\n  , C ]\n",
    ("replicas: [A, B, C]\n", (1,)): "replicas: [A, C]\n",
    ("replicas: [A, B, C]\n", (2,)): "replicas: [A, B]\n",
    ("replicas: [A, B, C,]\n", (0, 1, 2)): "replicas: []\n",
}


@pytest.mark.parametrize("text, indices", sorted(SHARED))
def test_an_entry_sharing_its_line_keeps_the_other_entries_comments(text, indices):
    after = remove(text, "replicas", set(indices))
    assert after == SHARED[(text, indices)]
    data = yaml.load(text, Loader=yaml.CSafeLoader)["replicas"]
    assert yaml.load(after, Loader=yaml.CSafeLoader)["replicas"] == [v for i, v in enumerate(data) if i not in indices]


def test_rep005_in_a_multi_line_flow_list(estate):
    """The audit's case: the repeated last entry and its comment go, the kept
    entry keeps its own comment."""
    sales = place(estate, "rep005", SALES)
    text = sales.read_text().replace(
        f"  replicas: {DUPLICATE}\n",
        "  replicas: [\n"
        "    PFDB-EX10-LON-01,\n"
        "    PFDB-EX10-PAR-01,   # Paris: primary for EMEA\n"
        "    PFDB-EX07-FRA-01,\n"
        "    pfdb-ex10-lon-01    # TEMP duplicate, remove after CHG-9\n"
        "  ]\n")
    sales.write_text(text)
    result = invoke("check", "--fix", SALES)
    assert "fixed 2 finding(s) in 1 file(s)" in result.stderr
    assert sales.read_text() == text.replace(
        "    pfdb-ex10-lon-01    # TEMP duplicate, remove after CHG-9\n", "").replace(BLOCK_DUPLICATE, "")
    assert not [f for f in findings(SALES) if f["rule"] == "REP005"]


# -- renaming a key that holds '.' or '[..]' ------------------------------------------------

@pytest.mark.parametrize("misspelt", ["Replication Send Status.Timeout", "Replication Send Status[1] Timeout"])
def test_a_key_holding_a_dot_or_brackets_is_renamed(estate, misspelt):
    store = estate / "stores" / "pfdb-ex03-lon-01.yaml"
    text = store.read_text().replace("    Track Duplicates (in hours): 24\n",
                                     f"    Track Duplicates (in hours): 24\n    {misspelt}: 86400   # CHG-7\n")
    store.write_text(text)
    assert [f["path"] for f in findings(store) if f["rule"] == "EXL005"] == [f"spec.registry.{misspelt}"]
    assert "(1 more with --unsafe-fixes)" in invoke("check", store).stdout
    result = invoke("check", "--fix", "--unsafe-fixes", store)
    assert "fixed 1 finding(s) in 1 file(s)" in result.stderr
    assert store.read_text() == text.replace(misspelt, "Replication Send Status Timeout")


def test_a_path_that_names_two_settings_is_not_fixed_with_a_reason():
    text = ("apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-1}\nspec:\n"
            "  registry:\n    Replication Send Status.Timeout: 1\n    Replication Send Status: {Timeout: 2}\n")
    document = load_text(text, "s.yaml").documents[0]
    finding = Finding("EXL005", "warning", "unknown", "s.yaml", 6, 5, "spec.registry.Replication Send Status.Timeout",
                      Entity("PublicFolderDatabase", "PFDB-1"))
    with pytest.raises(yamltext.Unfixable, match="names more than one setting"):
        engine._finding_path(finding, document)
    one = Finding("EXL005", "warning", "unknown", "s.yaml", 7, 5, "spec.registry.Replication Send Status",
                  Entity("PublicFolderDatabase", "PFDB-1"))
    assert engine._finding_path(one, document) == ("spec", "registry", "Replication Send Status")


# -- a file without a final line break keeps lacking one -------------------------------------

@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_a_line_added_at_the_end_adds_no_final_line_break(estate, eol):
    organization = place(estate, "shd001-missing", "organization.yaml")
    text = organization.read_text()
    text = text[: text.index("\n\n# Nothing below")].replace("\n", eol)  # ends with a transportConfig value
    organization.write_bytes(text.encode())
    invoke("check", "--fix", organization)
    assert organization.read_bytes().decode() == text + eol + "    MaxRetriesForRemoteSiteShadow: 0"


def test_a_deleted_last_line_takes_the_line_break_before_it(estate):
    store = place(estate, "bkf001", "stores/pfdb-ex03-nyc-01.yaml")
    text = store.read_text().replace("    # (end of registry values)\n", "").rstrip("\n")
    assert text.endswith("# PSS case 110052233 (2012), backfill storm")
    store.write_text(text)
    invoke("check", "--fix", "--unsafe-fixes", store)
    assert store.read_text() == text[: text.rindex("\n")]  # ends with `Track Duplicates (in hours): 24`
