"""Layout configuration of the book being ingested, with defaults for the Dược thư layout.

Everything the pipeline assumes about a particular printing lives here, not
in the code: page ranges, the header/folio band, what a monograph title looks
like (bold, at most 10% lowercase letters, one of two font sizes, short),
which printed headings map to which section key, which lines are part
dividers and where the back index starts.  The sample and synthetic PDFs must
pass with these defaults; the real book needs at most different values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from duocthu_contracts.sections import SECTION_HEADINGS, SectionKey
from duocthu_ingest.domain.text import heading_key


def _default_headings() -> dict[str, SectionKey]:
    """Printed heading variants (folded, see :func:`heading_key`) -> section key.

    Starts from the canonical headings and adds the variants the book prints
    (with or without the "(ADR)" suffix, "Quá liều và cách xử trí", …).  The
    taxonomy is open: a heading seen in a PDF is added here, never guessed.
    """
    mapping = {heading_key(text): key for key, text in SECTION_HEADINGS.items()}
    variants: dict[str, SectionKey] = {
        "Tên quốc tế": SectionKey.TEN_CHUNG_QUOC_TE,
        "Mã ATC": SectionKey.MA_ATC,
        "Dạng thuốc và nồng độ": SectionKey.DANG_THUOC_VA_HAM_LUONG,
        "Dạng thuốc": SectionKey.DANG_THUOC_VA_HAM_LUONG,
        "Dược lý và cơ chế": SectionKey.DUOC_LY_VA_CO_CHE_TAC_DUNG,
        "Dược lực học": SectionKey.DUOC_LY_VA_CO_CHE_TAC_DUNG,
        "Tác dụng không mong muốn": SectionKey.TAC_DUNG_KHONG_MONG_MUON,
        "Tác dụng không mong muốn (ADR)": SectionKey.TAC_DUNG_KHONG_MONG_MUON,
        "Hướng dẫn cách xử trí ADR": SectionKey.HUONG_DAN_CACH_XU_TRI_ADR,
        "Hướng dẫn xử trí ADR": SectionKey.HUONG_DAN_CACH_XU_TRI_ADR,
        "Cách dùng và liều lượng": SectionKey.LIEU_LUONG_VA_CACH_DUNG,
        "Liều dùng và cách dùng": SectionKey.LIEU_LUONG_VA_CACH_DUNG,
        "Độ ổn định và bảo quản": SectionKey.DO_ON_DINH_VA_BAO_QUAN,
        "Bảo quản": SectionKey.DO_ON_DINH_VA_BAO_QUAN,
        "Quá liều và xử trí": SectionKey.QUA_LIEU_VA_XU_TRI,
        "Quá liều và cách xử trí": SectionKey.QUA_LIEU_VA_XU_TRI,
        "Thông tin qui chế": SectionKey.THONG_TIN_QUY_CHE,
        "Tên thương mại": SectionKey.TEN_THUONG_MAI,
        "Thời kỳ cho con bú": SectionKey.THOI_KY_CHO_CON_BU,
    }
    mapping.update({heading_key(text): key for text, key in variants.items()})
    return mapping


@dataclass(frozen=True)
class TitleRule:
    """Seed 003 §8.1: bold + near all caps + short + in range; two font sizes; multi-line merge."""

    sizes: tuple[float, ...] = (10.0, 9.5)
    size_tolerance: float = 0.15
    max_lowercase_ratio: float = 0.10
    max_chars: int = 90
    max_words: int = 14
    max_lines: int = 3
    min_letters: int = 3
    #: Vertical gap (in line heights) up to which consecutive title lines merge.
    merge_gap_lines: float = 0.9


@dataclass(frozen=True)
class ChunkBudget:
    """Seed 003 §9.2 constants (cl100k_base tokens)."""

    ceiling: int = 800
    target: int = 650
    overlap: int = 65


def _compile(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


@dataclass(frozen=True)
class IngestConfig:
    # ---------------------------------------------------------------- pages
    #: Header band (running head + folio) as a fraction of page height from the top.
    header_band: float = 0.075
    #: Footer band (running foot) as a fraction of page height from the bottom.
    footer_band: float = 0.06
    #: A folio is a bare number in the header/footer band.
    folio_pattern: str = r"^\d{1,4}$"
    #: Printed pages of the monograph part (the real book: 99–1496); ``None`` = from the part dividers.
    monograph_printed_range: tuple[int, int] | None = None
    # ---------------------------------------------------------------- columns
    #: A block wider than this fraction of the text width is full width.
    full_width_ratio: float = 0.62
    # ---------------------------------------------------------------- structure
    title: TitleRule = field(default_factory=TitleRule)
    headings: dict[str, SectionKey] = field(default_factory=_default_headings)
    #: Part dividers: lines that open a part of the book; never monograph titles.
    part_divider_patterns: tuple[str, ...] = (
        r"^PHẦN\s+(\d+|[IVX]+)\b", r"^CÁC CHUYÊN LUẬN\b", r"^CHUYÊN LUẬN THUỐC$", r"^PHỤ LỤC\b",
        r"^HƯỚNG DẪN CHUNG\b", r"^CHỈ MỤC\b", r"^MỤC LỤC\b", r"^BẢNG TRA CỨU\b", r"^LỜI (NÓI ĐẦU|GIỚI THIỆU)\b",
    )
    #: The divider that opens the monograph part (first match wins).
    monograph_part_patterns: tuple[str, ...] = (r"^PHẦN\s+(2|II)\b", r"^CÁC CHUYÊN LUẬN THUỐC\b")
    #: Dividers that close the monograph part (appendices, back index).
    after_monograph_patterns: tuple[str, ...] = (
        r"^PHẦN\s+(3|III)\b", r"^PHỤ LỤC\b", r"^CHỈ MỤC\b", r"^BẢNG TRA CỨU\b",
    )
    #: Heading of the back index ("xem …" aliases and page numbers).
    back_index_patterns: tuple[str, ...] = (r"^CHỈ MỤC\b", r"^BẢNG TRA CỨU\b", r"^MỤC LỤC TRA CỨU\b")
    #: Back-index alias entries: "ASPIRIN xem ACID ACETYLSALICYLIC".
    index_alias_pattern: str = r"^(?P<alias>.+?)\s+xem\s+(?P<target>.+?)\.?$"
    #: Back-index page entries: "PARACETAMOL .......... 1023" (dot leaders optional).
    index_entry_pattern: str = r"^(?P<name>.*?[^\s.…])[\s.…]*\s(?P<page>\d{1,4})$"
    # ---------------------------------------------------------------- tables and formulas
    #: A table caption line directly above a table belongs to the quarantined block.
    table_caption_pattern: str = r"^Bảng\s+\d+[.:]"
    # ---------------------------------------------------------------- labels
    #: A population/route label: a short phrase at a paragraph start ending in a colon.
    label_max_words: int = 12
    label_max_chars: int = 80
    #: Route labels start a new scope (they reset carried population labels).
    route_label_patterns: tuple[str, ...] = (
        r"^(đường|tiêm|truyền|uống|đặt|dùng ngoài|bôi|nhỏ|khí dung|hít|xịt|ngậm|thụt|đặt trực tràng)\b",
    )
    #: Top-level population labels: a paragraph starting with one ends a population scope ("Trẻ em:").
    population_label_patterns: tuple[str, ...] = (
        r"^(người lớn|người cao tuổi|người già|trẻ em|trẻ sơ sinh|trẻ nhỏ|thiếu niên|trẻ vị thành niên|"
        r"phụ nữ|suy thận|suy gan|người suy|bệnh nhân|người bệnh)\b",
    )
    #: Paragraph labels that are not population/route labels (not offered as dosage labels).
    non_population_labels: tuple[str, ...] = (
        "cách dùng", "liều dùng", "liều lượng", "chú ý", "lưu ý", "ghi chú", "thuốc tiêm", "thuốc uống",
    )
    #: Abbreviations that end with a period but do not end a sentence.
    abbreviations: tuple[str, ...] = (
        "v.v.", "vv.", "tr.", "TS.", "ThS.", "BS.", "DS.", "GS.", "PGS.", "Dr.", "e.g.", "i.e.", "etc.", "vs.",
        "spp.", "sp.", "subsp.", "var.", "cf.", "al.", "ca.", "approx.", "No.", "Fig.", "St.", "t.t.",
    )
    # ---------------------------------------------------------------- chunks
    budget: ChunkBudget = field(default_factory=ChunkBudget)
    # ---------------------------------------------------------------- QA
    #: Render resolution of the residual-ink check (pixels per inch).
    residual_ink_dpi: int = 50
    #: Components smaller than this many pixels are anti-aliasing specks.
    speck_max_pixels: int = 6
    #: Back-index validation must reach these (1.0 = every indexed monograph found, nothing extra).
    min_index_recall: float = 1.0
    min_index_precision: float = 1.0

    # ---------------------------------------------------------------- compiled forms
    def part_dividers(self) -> tuple[re.Pattern[str], ...]:
        return _compile(self.part_divider_patterns)

    def monograph_part(self) -> tuple[re.Pattern[str], ...]:
        return _compile(self.monograph_part_patterns)

    def after_monographs(self) -> tuple[re.Pattern[str], ...]:
        return _compile(self.after_monograph_patterns)

    def back_index(self) -> tuple[re.Pattern[str], ...]:
        return _compile(self.back_index_patterns)

    def route_labels(self) -> tuple[re.Pattern[str], ...]:
        return _compile(self.route_label_patterns)

    def population_labels(self) -> tuple[re.Pattern[str], ...]:
        return _compile(self.population_label_patterns)


DEFAULT_CONFIG = IngestConfig()
