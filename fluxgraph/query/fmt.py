"""Number formatting as the reference's C++ streams print it."""

from __future__ import annotations

__all__ = ["fmt_f", "fmt_g"]


def fmt_g(x: float) -> str:
    """C++ default stream format of a double (C ``%g``, precision 6).

    Examples
    --------
    >>> fmt_g(0.000128984), fmt_g(8.4877e-05), fmt_g(1.7976931348623157e308), fmt_g(0.0)
    ('0.000128984', '8.4877e-05', '1.79769e+308', '0')
    """
    return f"{x:g}"


def fmt_f(x: float) -> str:
    """``std::to_string(double)``: C ``%f``, six decimals.

    Examples
    --------
    >>> fmt_f(0.000298)
    '0.000298'
    """
    return f"{x:f}"
