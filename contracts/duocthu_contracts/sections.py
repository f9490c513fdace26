"""The closed set of monograph section keys and their printed headings.

The set is closed on purpose: retrieval filters on ``section_key`` and a key
that only one stage knows would silently match nothing.  It may be extended
only from headings actually seen in a PDF (DESIGN.md).  The order is the order
in which the book prints a monograph's sections.
"""

from __future__ import annotations

from enum import StrEnum


class SectionKey(StrEnum):
    TEN_CHUNG_QUOC_TE = "ten_chung_quoc_te"
    MA_ATC = "ma_atc"
    LOAI_THUOC = "loai_thuoc"
    DANG_THUOC_VA_HAM_LUONG = "dang_thuoc_va_ham_luong"
    DUOC_LY_VA_CO_CHE_TAC_DUNG = "duoc_ly_va_co_che_tac_dung"
    DUOC_DONG_HOC = "duoc_dong_hoc"
    CHI_DINH = "chi_dinh"
    CHONG_CHI_DINH = "chong_chi_dinh"
    THAN_TRONG = "than_trong"
    THOI_KY_MANG_THAI = "thoi_ky_mang_thai"
    THOI_KY_CHO_CON_BU = "thoi_ky_cho_con_bu"
    TAC_DUNG_KHONG_MONG_MUON = "tac_dung_khong_mong_muon"
    HUONG_DAN_CACH_XU_TRI_ADR = "huong_dan_cach_xu_tri_adr"
    LIEU_LUONG_VA_CACH_DUNG = "lieu_luong_va_cach_dung"
    TUONG_TAC_THUOC = "tuong_tac_thuoc"
    DO_ON_DINH_VA_BAO_QUAN = "do_on_dinh_va_bao_quan"
    TUONG_KY = "tuong_ky"
    QUA_LIEU_VA_XU_TRI = "qua_lieu_va_xu_tri"
    THONG_TIN_QUY_CHE = "thong_tin_quy_che"
    TEN_THUONG_MAI = "ten_thuong_mai"


#: Printed heading of each section, in the book's spelling and in book order.
SECTION_HEADINGS: dict[SectionKey, str] = {
    SectionKey.TEN_CHUNG_QUOC_TE: "Tên chung quốc tế",
    SectionKey.MA_ATC: "Mã ATC",
    SectionKey.LOAI_THUOC: "Loại thuốc",
    SectionKey.DANG_THUOC_VA_HAM_LUONG: "Dạng thuốc và hàm lượng",
    SectionKey.DUOC_LY_VA_CO_CHE_TAC_DUNG: "Dược lý và cơ chế tác dụng",
    SectionKey.DUOC_DONG_HOC: "Dược động học",
    SectionKey.CHI_DINH: "Chỉ định",
    SectionKey.CHONG_CHI_DINH: "Chống chỉ định",
    SectionKey.THAN_TRONG: "Thận trọng",
    SectionKey.THOI_KY_MANG_THAI: "Thời kỳ mang thai",
    SectionKey.THOI_KY_CHO_CON_BU: "Thời kỳ cho con bú",
    SectionKey.TAC_DUNG_KHONG_MONG_MUON: "Tác dụng không mong muốn (ADR)",
    SectionKey.HUONG_DAN_CACH_XU_TRI_ADR: "Hướng dẫn cách xử trí ADR",
    SectionKey.LIEU_LUONG_VA_CACH_DUNG: "Liều lượng và cách dùng",
    SectionKey.TUONG_TAC_THUOC: "Tương tác thuốc",
    SectionKey.DO_ON_DINH_VA_BAO_QUAN: "Độ ổn định và bảo quản",
    SectionKey.TUONG_KY: "Tương kỵ",
    SectionKey.QUA_LIEU_VA_XU_TRI: "Quá liều và xử trí",
    SectionKey.THONG_TIN_QUY_CHE: "Thông tin quy chế",
    SectionKey.TEN_THUONG_MAI: "Tên thương mại",
}

#: Sections the book prints as an inline bold label followed by the text on
#: the same line ("Tên chung quốc tế: Paracetamol.") rather than as a heading
#: on its own line.
INLINE_LABEL_SECTIONS: frozenset[SectionKey] = frozenset(
    {SectionKey.TEN_CHUNG_QUOC_TE, SectionKey.MA_ATC, SectionKey.LOAI_THUOC}
)

SECTION_ORDER: tuple[SectionKey, ...] = tuple(SECTION_HEADINGS)

#: Sections that warn (contraindications, precautions, adverse reactions, interactions, overdose,
#: pregnancy, lactation, incompatibilities): an answer that reads one carries a warning, and the
#: block that cites one is shown as a warning.  One definition for every stage.
WARNING_SECTIONS: frozenset[SectionKey] = frozenset({
    SectionKey.CHONG_CHI_DINH, SectionKey.THAN_TRONG, SectionKey.TAC_DUNG_KHONG_MONG_MUON,
    SectionKey.TUONG_TAC_THUOC, SectionKey.QUA_LIEU_VA_XU_TRI, SectionKey.THOI_KY_MANG_THAI,
    SectionKey.THOI_KY_CHO_CON_BU, SectionKey.TUONG_KY,
})
