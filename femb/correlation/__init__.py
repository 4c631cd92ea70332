"""The DOF correlation table: global numbering, ties, supports and the CSR scatter map."""
from femb.correlation.table import CorrelationTable, ElementBlock, build_table

__all__ = ["CorrelationTable", "ElementBlock", "build_table"]
