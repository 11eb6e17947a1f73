"""Rule documentation from the rule packs: `exlint explain`, `exlint rules`,
and the generated docs/rules.md (so docs cannot drift from the rules)."""
from __future__ import annotations

import yaml


def rule_summary(rule) -> dict:
    return {
        "id": rule.id,
        "title": rule.title,
        "severity": rule.severity,
        "family": rule.family,
        "fixable": rule.fixable,
        "source": rule.source,
        "summary": rule.summary,
        "pack": rule.pack,
    }


def _example_text(example) -> str:
    return yaml.safe_dump(example, sort_keys=False, allow_unicode=True, default_flow_style=False).rstrip()


def _fix_text(rule) -> str:
    from linter.fixing.spec import describe
    from linter.model.tables import load_tables

    tables = load_tables()
    names = {n: f"`{tables[t].fields[n].path[-1]}`" for t in rule.tables for n in tables[t].fields}
    return describe(rule.fix, lambda name: names.get(name, name))


def explain_text(rule) -> str:
    parts = [f"{rule.id} [{rule.severity}] {rule.title}", ""]
    parts += ["What it does", "  " + rule.summary.replace("\n", "\n  "), ""]
    parts += ["Why it matters", "  " + rule.rationale.replace("\n", "\n  "), ""]
    if rule.source:
        parts += ["Source", "  " + rule.source_text(), ""]
    examples = rule.examples or {}
    for label, key in (("Example (raises it)", "bad"), ("Use instead", "good")):
        for example in (examples.get(key) or [])[:1]:
            parts += [label, "  " + _example_text(example).replace("\n", "\n  "), ""]
    if rule.fix_hint:
        parts += ["How to fix", "  " + rule.fix_hint.replace("\n", "\n  "), ""]
    parts.append("Autofix: " + (f"yes (exlint check --fix): {_fix_text(rule)}" if rule.fixable else "no"))
    return "\n".join(parts)


def rules_markdown(rules) -> str:
    lines = ["# exlint rules", "", "Generated from `rules/*.yaml` by `python -m linter.docs`; do not edit.", ""]
    lines += ["| ID | Severity | Title | Autofix |", "|---|---|---|---|"]
    for rule in rules.values():
        lines.append(f"| [{rule.id}](#{rule.id.lower()}) | {rule.severity} | {rule.title} | {'yes' if rule.fixable else ''} |")
    lines.append("")
    for rule in rules.values():
        lines += [f"## {rule.id}", "", f"**{rule.title}** ({rule.severity})", ""]
        lines += ["### What it does", "", rule.summary, "", "### Why it matters", "", rule.rationale, ""]
        if rule.source:
            lines += ["### Source", "", rule.source_text(), ""]
        examples = rule.examples or {}
        for label, key in (("Example", "bad"), ("Use instead", "good")):
            for example in (examples.get(key) or [])[:1]:
                lines += [f"### {label}", "", "```yaml", _example_text(example), "```", ""]
        if rule.fix_hint:
            lines += ["### How to fix", "", rule.fix_hint, ""]
        lines += [f"Autofix: {'yes: ' + _fix_text(rule) if rule.fixable else 'no'}", ""]
    return "\n".join(lines)


if __name__ == "__main__":  # regenerate docs/rules.md
    from pathlib import Path

    from linter.policy.packs import load_rules

    target = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    target.write_text(rules_markdown(load_rules()), encoding="utf-8")
    print(f"wrote {target}")
