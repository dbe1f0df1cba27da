"""``qmodel formula show``: a catalogue entry pretty-printed with sympy, with its symbols."""

from __future__ import annotations

import json
import sys

import sympy
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm

from qmodel.catalogue.loader import Formula, user_entries
from qmodel.catalogue.symbolic import parsed
from qmodel.catalogue.user import symbolic_catalogue
from qmodel.output import console as make_console
from qmodel.output import render, wrap_at_spaces


class _FieldNamesPrinter(PrettyPrinter):
    """sympy's pretty printer, keeping ``arrival_rate`` whole (not arrival with subscript rate)."""

    def _print_Symbol(self, symbol, bold_name=False):  # noqa: N802 - the name sympy dispatches on
        return prettyForm(symbol.name)


def _unicode_out() -> bool:
    """Whether standard output takes Unicode (not ``LANG=C``, ``PYTHONIOENCODING=ascii``)."""
    return (getattr(sys.stdout, "encoding", None) or "utf-8").lower().replace("-", "").startswith("utf")


def pretty(expr: sympy.Basic) -> str:
    """A 2-D rendering of an expression, never wrapped: in Unicode, or in ASCII where standard output
    takes no Unicode (``LANG=C``, ``PYTHONIOENCODING=ascii``)."""
    return _FieldNamesPrinter({"use_unicode": _unicode_out(), "wrap_line": False}).doprint(expr)


def equation_lines(name: str, expr: sympy.Basic, written: str, width: int) -> list[str]:
    """``name = expr`` drawn in 2-D where it fits in ``width`` columns; else as the catalogue writes it
    (``written``), folded at its spaces like the tables' cells (a name or number is never split)."""
    drawn = pretty(sympy.Eq(sympy.Symbol(name), expr)).splitlines()
    if max(len(line) for line in drawn) <= width:
        return drawn
    return wrap_at_spaces(f"{name} = {written}", width, subsequent_indent="    ")


def describe_formula(formula: Formula, fmt: str) -> None:
    """Print the entry: equations, symbols, outputs, constraints, properties and source."""
    entry = parsed(formula.id) if formula.builtin else symbolic_catalogue(user_entries()).parsed(formula.id)
    symbols = [
        [name, s.meaning, s.unit, s.domain.describe(name), "" if s.default is None else f"{s.default:g}"]
        for name, s in formula.symbols.items()
    ]
    outputs = [[o.name, o.meaning, o.unit, o.expr] for o in formula.outputs]
    constraints = [
        f"{c.name} {c.relation} {c.bound:g}{' (warning only)' if c.kind == 'warn' else ''}: {c.reason}"
        for c in formula.constraints
    ]
    properties = [p.text() for p in formula.properties]
    if fmt != "table":
        payload = {
            "id": formula.id,
            "title": formula.title,
            "source": formula.source,
            "file": formula.file,
            "notes": formula.notes,
            "algorithm": formula.algorithm,
            "model": formula.model,
            "symbols": [
                dict(zip(["name", "meaning", "unit", "domain", "default"], s, strict=True)) for s in symbols
            ],
            "outputs": [dict(zip(["name", "meaning", "unit", "expr"], o, strict=True)) for o in outputs],
            "constraints": constraints,
            "properties": properties,
        }
        if fmt == "json":
            json.dump(payload, sys.stdout, indent=2, ensure_ascii=False)
            sys.stdout.write("\n")
        else:
            render(["name", "meaning", "unit", "domain", "default"], symbols, "csv")
        return
    console = make_console(markup=True)
    bullet = "•" if _unicode_out() else "-"
    console.print(f"[bold]{formula.id}[/bold]: {formula.title}\n")
    for name, expr in entry.outputs.items():
        lines = equation_lines(
            name, expr, formula.output(name).expr or "(computed by the model function)", console.width
        )
        console.print("\n".join(lines) + "\n", highlight=False, markup=False, soft_wrap=True)
    if formula.algorithm:
        console.print(
            f"Computed by the stable recursion {formula.algorithm} (qmodel.catalogue.registry); "
            "the expression above is its definition.\n"
        )
    if formula.model:
        console.print(
            f"Computed by the model function {formula.model} (qmodel.catalogue.registry) "
            "(no closed form); its docstring gives the method.\n"
        )
    render(["symbol", "meaning", "unit", "domain", "default"], symbols, "table", title="Inputs")
    render(["output", "meaning", "unit", "expression"], outputs, "table", title="Outputs")
    for heading, lines in (("Constraints", constraints), ("Properties (tested)", properties)):
        if lines:
            console.print(f"[bold]{heading}[/bold]")
            for line in lines:
                console.print(f"  {bullet} {line}", markup=False, highlight=False)
    console.print(f"[bold]Source[/bold]: {formula.source}", highlight=False)
    if formula.notes:
        console.print(f"[bold]Notes[/bold]: {formula.notes}", highlight=False)
    console.print(f"[dim]Catalogue file: {'formulas/' if formula.builtin else ''}{formula.file}[/dim]")
