"""Free-interface component mode synthesis with residual flexibility and Hutton & Smith's
structural modification: Ritz bounds and accuracy against retained modes on a free–free
two-component beam, forward modification exact for a mass change, sensitivity sum rules, the
inverse problem (a density change that lowers a frequency by 10 %) checked by a full
re-analysis, and forward modification of a portal frame's beam stiffness over a range of α
against full re-analysis."""
from femb.validation.modification_cases import modification_case


def run(quick, out_dir):
    return modification_case(quick)
