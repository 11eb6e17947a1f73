"""The real CSS-Exchange captures of Exchange 2016 and 2019 servers, imported and
linted: a modern estate (no public folder database, no server before 2013) has
no HIE/REP/BKF/STS/RTE finding, and the Organization carries the name the
captures give it."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from linter.cli import cli

from .conftest import CSS_EXCHANGE, find_document, run_import

PUBLIC_FOLDER_FAMILIES = ("HIE", "REP", "BKF", "STS", "RTE")


def lint(root) -> list[dict]:
    result = CliRunner().invoke(cli, ["check", "--format", "json", "--fail-on", "never", str(root)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["findings"]


@pytest.mark.parametrize("capture", ["E16", "E19", "."])
def test_modern_captures_lint_without_public_folder_findings(capture, tmp_path):
    if not CSS_EXCHANGE.is_dir():
        pytest.skip(f"real-world captures not found at {CSS_EXCHANGE}")
    result = run_import(CSS_EXCHANGE / capture, "--output", tmp_path)
    assert result.exit_code == 0, result.stderr
    organization = find_document(tmp_path, "Organization", "SoloORG")
    assert organization["metadata"]["name"] == "SoloORG"  # from CN=SoloORG,CN=Microsoft Exchange
    found = lint(tmp_path)
    assert [f for f in found if f["rule"].startswith(PUBLIC_FOLDER_FAMILIES)] == []


def test_organization_option_names_it(tmp_path):
    if not CSS_EXCHANGE.is_dir():
        pytest.skip(f"real-world captures not found at {CSS_EXCHANGE}")
    result = run_import(CSS_EXCHANGE / "E16", "--output", tmp_path, "--organization", "Contoso")
    assert result.exit_code == 0, result.stderr
    assert find_document(tmp_path, "Organization", "Contoso")


def test_no_source_names_the_organization_it_is_never_called_organization(tmp_path):
    if not CSS_EXCHANGE.is_dir():
        pytest.skip(f"real-world captures not found at {CSS_EXCHANGE}")
    out = tmp_path / "lab-estate"
    result = run_import(CSS_EXCHANGE / "E16" / "EdgeTransport.exe.config", "--output", out)
    assert result.exit_code == 0, result.stderr
    assert find_document(out, "Organization", "lab-estate")
    assert "use --organization NAME" in result.stderr


def test_a_public_folder_database_brings_the_public_folder_rules_back(tmp_path):
    """The same modern estate with one public folder database: HIE007 asks for its MAPI hierarchy."""
    if not CSS_EXCHANGE.is_dir():
        pytest.skip(f"real-world captures not found at {CSS_EXCHANGE}")
    assert run_import(CSS_EXCHANGE / "E16", "--output", tmp_path).exit_code == 0
    (tmp_path / "pfdb.yaml").write_text(
        "apiVersion: exlint/v1\nkind: PublicFolderDatabase\nmetadata: {name: PFDB-01}\n"
        "spec: {server: SOLO-E16A, hierarchy: Public Folders, emailAddress: pfdb@solo.local, created: 2016-01-01}\n")
    assert "HIE007" in {f["rule"] for f in lint(tmp_path)}
