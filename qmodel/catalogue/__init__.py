"""The formula catalogue: loading ``formulas/*.toml``, the generated numpy code, evaluation, inverse solves.

Layer 1 of qmodel. ``loader`` checks the TOML structure without sympy;
``symbolic`` parses the expressions with sympy (never on the quick path);
``codegen`` prints them to numpy in ``_compiled``; ``evaluate`` runs the
generated code with domain and stability checks; ``inverse`` solves for an
input; ``describe`` pretty-prints an entry.
"""
