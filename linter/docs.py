"""Rule documentation from the rule packs: `exlint explain`, `exlint rules`,
and the generated docs/rules.md (so docs cannot drift from the rules).

A rule's page follows ruff's: what it does, why it matters, an example and
what to use instead, options with their defaults, fix availability and
safety, references. Examples are shown as the complete documents they change
in the example estate (linter/policy/example_base.yaml), never as patches."""
from __future__ import annotations

import yaml

from linter.policy.examples import base_documents, example_documents

def rule_summary(rule) -> dict:
    from linter.fixing.spec import parse_fix

    spec = parse_fix(rule.fix)
    return {
        "id": rule.id,
        "title": rule.title,
        "severity": rule.severity,
        "family": rule.family,
        "fixable": rule.fixable,
        "fix_safety": spec.safety if spec else None,
        "source": rule.source,
        "summary": rule.summary,
        "options": rule.option_defaults,
        "pack": rule.pack,
    }

class _Indented(yaml.SafeDumper):
    """Block lists indented under their key, as people write them."""

    def increase_indent(self, flow=False, indentless=False):
        return super().increase_indent(flow, False)


def _key(document) -> tuple:
    return (str(document.get("kind")), str((document.get("metadata") or {}).get("name")))

def example_text(example) -> str:
    """The example as YAML a user can paste: each document it adds or changes,
    complete, in a multi-document stream; a raw-text example as written."""
    documents, raw = example_documents(example)
    if raw is not None:
        return raw.rstrip("\n")
    base = {_key(d): d for d in base_documents()}
    shown = [d for d in documents if base.get(_key(d)) != d]
    removed = sorted(set(base) - {_key(d) for d in documents})
    parts = [yaml.dump(d, Dumper=_Indented, sort_keys=False, allow_unicode=True, default_flow_style=False,
                       width=100).rstrip() for d in shown]
    text = "\n---\n".join(parts)
    if removed:
        text = f"# removed from the estate: {', '.join(f'{k} {n}' for k, n in removed)}\n" + text
    return text

def base_estate_text() -> str:
    return ", ".join(f"{k} {n}" for k, n in (_key(d) for d in base_documents()))

def _fix_lines(rule) -> list[str]:
    from linter.fixing.spec import availability, describe, parse_fix
    from linter.model.tables import load_tables

    if not rule.fixable:
        return ["Fix: no fix"]
    tables = load_tables()
    names = {n: f"`{tables[t].fields[n].path[-1]}`" for t in rule.tables for n in tables[t].fields}
    spec = parse_fix(rule.fix)
    why = ("safe: what Exchange does today is kept" if spec.safe
           else "unsafe: it changes what Exchange does, so review it")
    return [f"Fix: {availability(rule.fix)}", f"  {describe(rule.fix, lambda n: names.get(n, n))}; {why}"]

def _option_lines(rule) -> list[str]:
    return [f"  {name} (default {value}): in .exlint.yaml, `options: {{{rule.id}: {{{name}: {value}}}}}`"
            for name, value in rule.option_defaults.items()]

def _references(rule) -> list[str]:
    src = rule.source or {}
    lines = [rule.citation()] if rule.citation() else []
    if src.get("quote"):
        lines.append(f"  \u201c{src['quote']}\u201d")
    if src.get("note"):
        lines.append(f"  {src['note']}")
    return lines

def _examples(rule) -> list[tuple[str, str]]:
    examples = rule.examples or {}
    return [(label, example_text(example)) for label, key in (("Example", "bad"), ("Use instead", "good"))
            for example in (examples.get(key) or [])[:1]]


RULE_FAILED_TITLE = "A rule could not run"
RULE_FAILED_TEXT = (
    f"EXL000 [error] {RULE_FAILED_TITLE}\n\n"
    "What it does\n"
    "  Reports a rule that failed while it ran (an error in a rule pack, an expression the Spark\n"
    "  version in use cannot analyse or run), naming the rule and the cause. The other rules'\n"
    "  findings stand; the failed rule's are missing, so the run fails (exit 1).\n\n"
    "Why it matters\n"
    "  A check that silently does not run looks like a clean estate. EXL000 is never hidden:\n"
    "  --select, --ignore, the configuration and suppression comments do not apply to it, and\n"
    "  naming it there is a configuration error.\n\n"
    "How to fix\n"
    "  Fix the rule it names (`exlint rules --self-test` runs every rule's examples), or remove its\n"
    "  pack; for a built-in rule, report it with the message.\n")


def explain_text(rule) -> str:
    indent = lambda text: "  " + text.replace("\n", "\n  ")  # noqa: E731
    parts = [f"{rule.id} [{rule.severity}] {rule.title}", ""]
    parts += _fix_lines(rule) + [""]
    parts += ["What it does", indent(rule.summary), ""]
    parts += ["Why it matters", indent(rule.rationale), ""]
    examples = _examples(rule)
    if examples:
        parts += [f"The examples show the documents they change in an estate of {base_estate_text()}.", ""]
    for label, text in examples:
        parts += [label, indent(text), ""]
    if rule.fix_hint:
        parts += ["How to fix", indent(rule.fix_hint), ""]
    if rule.option_defaults:
        parts += ["Options"] + _option_lines(rule) + [""]
    if rule.source:
        parts += ["References"] + ["  " + line for line in _references(rule)] + [""]
    return "\n".join(parts).rstrip() + "\n"

def rules_markdown(rules) -> str:
    from linter.fixing.spec import availability

    lines = ["# exlint rules", "", "Generated from `rules/*.yaml` by `python -m linter.docs`; do not edit.", ""]
    lines += ["A fix marked *safe* keeps what Exchange does today and `exlint check --fix` applies it; "
              "an *unsafe* fix changes what Exchange does and needs `--fix --unsafe-fixes` "
              "(see [autofix.md](autofix.md)).", "",
              "A rule that reports a value differing from its default (the warning BKF001, a "
              "`Preferred Backfill Source` set at all, and the info rules BKF006, STS001, CON002 and "
              "DUP004) stays silent on a value that another warning or error rule already reports: "
              "one problem, one finding.", "",
              "A document whose YAML does not parse is EXL001's. When its `apiVersion`, `kind` and "
              "`metadata.name` come before the error (as they do in exlint's documents), the object "
              "still exists for the other documents, every other field unread: a replica list or a "
              "server naming it is not reported as naming something undefined (one problem, one "
              "finding). An Organization so broken still counts as the estate's one Organization "
              "(EXL008), though its sites and lists cannot be read.", "",
              "A fact ID in a rule's text (F1 to F26) names an entry of the rule catalog's table of "
              "facts gathered from Microsoft's published references (a default, a range, a unit) "
              "in addition to the document under References.", "",
              "A value written in a form exlint cannot read (a single name where a list goes, a "
              "number where a date goes, a duration in a form Exchange does not accept, a registry "
              "number outside its documented range such as `DeliveredTo Expiration in Hours: 0`, a "
              "key left empty such as `replicas:`, a list entry that is no name such as the `5` of "
              "`replicas: [PFDB-LON, 5]`, or any value under a mapping written as something else, "
              "such as `registry: [a]`) is EXL003's "
              "alone: a rule that judges one record or pair at a time and reads that field stands "
              "down for the record, rather than judging the value as absent (REP003 does not also say "
              "the folder has no replica). Rules that count records (group, unique, minority) read "
              "it as no value.", "",
              "HIE006 and HIE007 (site folder servers, the MAPI hierarchy) stand down in an estate "
              "that has servers, all of them Exchange 2013 or later, and no public folder database: "
              "Exchange 2013 and later keep public folders in mailboxes, so there is nothing to define "
              "(reality, which the catalog does not state). An estate of an Organization alone, or "
              "one with a public folder database or an older server, is checked as the catalog says.", "",
              "EXL000 (not listed below) reports a rule that could not run, naming it and the cause; "
              "it is never hidden by selection, configuration or suppression (`exlint explain EXL000`); a rule that the selection leaves out is not run at all, by either engine.", "",
              "EXL001 and EXL004 can be re-levelled or turned off like any rule, but a document they keep from being read is never dropped without a word: "
              "when `--select`, `--ignore`, the configuration or a suppression comment hides such a finding, exlint prints a note naming the document "
              "(`check`: each one; `estate`: the first, and how many more), so a narrow selection cannot pass a file exlint could not read unnoticed.", "",
              f"Examples are the documents they change in an estate of {base_estate_text()}.", ""]
    lines += ["| ID | Severity | Title | Fix |", "|---|---|---|---|"]
    for rule in rules.values():
        fix = availability(rule.fix).split(" (")[0] if rule.fixable else ""
        lines.append(f"| [{rule.id}](#{rule.id.lower()}) | {rule.severity} | {rule.title} | {fix} |")
    lines.append("")
    for rule in rules.values():
        lines += [f"## {rule.id}", "", f"**{rule.title}** ({rule.severity})", ""]
        lines += ["### What it does", "", rule.summary, "", "### Why it matters", "", rule.rationale, ""]
        for label, text in _examples(rule):
            lines += [f"### {label}", "", "```yaml", text, "```", ""]
        if rule.fix_hint:
            lines += ["### How to fix", "", rule.fix_hint, ""]
        if rule.option_defaults:
            lines += ["### Options", ""] + [f"- {line.strip()}" for line in _option_lines(rule)] + [""]
        lines += ["### Fix", ""] + [line.strip() for line in _fix_lines(rule)] + [""]
        if rule.source:
            lines += ["### References", ""] + [f"- {rule.citation()}" if i == 0 else f"  {line.strip()}"
                                               for i, line in enumerate(_references(rule))] + [""]
    return "\n".join(lines)


if __name__ == "__main__":  # regenerate docs/rules.md
    from pathlib import Path

    from linter.policy.packs import load_rules

    target = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    target.write_text(rules_markdown(load_rules()), encoding="utf-8")
    print(f"wrote {target}")
