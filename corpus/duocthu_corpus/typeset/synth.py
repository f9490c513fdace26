"""A full-size synthetic book (clearly synthetic text) for scale and performance tests, never for answers.

Monographs are generated from templates and a small vocabulary with a seeded
random generator, so ``--seed N`` always gives the same book.  They have the
real book's shape: every section, long dosage sections with population and
route labels, interaction lists, a ruled table every few monographs and a
fraction every so often.
"""

from __future__ import annotations

import random

from duocthu_corpus.monograph import Monograph, slugify

_SYLLABLES = ("ra", "lo", "mi", "xa", "te", "do", "fi", "zo", "ben", "cor", "dal", "fen", "gar", "lin", "mor",
              "pex", "sul", "tri", "van", "zol")
_ENDINGS = ("in", "ol", "at", "id", "on", "an", "ex", "il")
_CONDITIONS = ("tăng huyết áp", "đái tháo đường typ 2", "nhiễm khuẩn đường hô hấp", "đau đầu", "viêm khớp",
               "hen phế quản", "suy tim mạn", "loét dạ dày tá tràng", "động kinh", "gút cấp", "suy giáp")
_LABEL = "Dữ liệu tổng hợp để đo hiệu năng, không phải nội dung dược thư."


def _name(rng: random.Random, used: set[str]) -> str:
    while True:
        name = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))) + rng.choice(_ENDINGS)
        if name not in used:
            used.add(name)
            return name


def _sentences(rng: random.Random, subject: str, n: int) -> list[str]:
    verbs = ("được dùng", "cần theo dõi", "có thể gây", "làm giảm", "làm tăng", "không nên dùng")
    return [f"{subject.capitalize()} {rng.choice(verbs)} {rng.choice(_CONDITIONS)} ở {rng.randint(5, 95)}% "
            f"trường hợp trong nghiên cứu tổng hợp số {rng.randint(1, 999)}." for _ in range(n)]


def synthetic_monograph(rng: random.Random, used: set[str], index: int) -> Monograph:
    name = _name(rng, used)
    title = name.upper() if index % 7 else f"{name.upper()} VÀ {_name(rng, used).upper()}"
    dose: list[object] = ["Đường uống:"]
    for label in ("Người lớn", "Trẻ em từ 6 đến 12 tuổi", "Trẻ em dưới 6 tuổi", "Người cao tuổi",
                  "Suy thận (Clcr dưới 30 ml/phút)", "Suy gan"):
        dose.append(f"{label}: {rng.randint(1, 50) * 10} mg/lần, {rng.randint(1, 4)} lần/ngày. "
                    + " ".join(_sentences(rng, name, rng.randint(3, 8))))
    if index % 5 == 0:
        dose.append({"table": {"caption": f"Bảng 1. Điều chỉnh liều {name} theo Clcr (tổng hợp)",
                               "header": [[{"text": "Clcr (ml/phút)"}, {"text": "Liều"}]],
                               "rows": [[{"text": "> 50"}, {"text": "100%"}], [{"text": "10 – 50"}, {"text": "50%"}]]}})
    if index % 11 == 0:
        dose.append({"formula": {"lead": "Clcr (ml/phút) =", "numerator": "(140 – tuổi) × cân nặng (kg)",
                                 "denominator": "72 × creatinin huyết thanh (mg/100 ml)"}})
    sections: dict[str, object] = {
        "ten_chung_quoc_te": name.capitalize() + ".",
        "ma_atc": f"X{rng.randint(10, 99)}XX{rng.randint(10, 99)}.",
        "loai_thuoc": f"Thuốc tổng hợp nhóm {rng.randint(1, 40)}. {_LABEL}",
        "dang_thuoc_va_ham_luong": f"Viên nén {rng.randint(1, 50) * 10} mg.",
        "duoc_ly_va_co_che_tac_dung": _sentences(rng, name, rng.randint(8, 16)),
        "duoc_dong_hoc": _sentences(rng, name, rng.randint(6, 12)),
        "chi_dinh": [f"{c.capitalize()}." for c in rng.sample(_CONDITIONS, 3)],
        "chong_chi_dinh": _sentences(rng, name, rng.randint(2, 4)),
        "than_trong": _sentences(rng, name, rng.randint(5, 10)),
        "thoi_ky_mang_thai": _sentences(rng, name, 2),
        "thoi_ky_cho_con_bu": _sentences(rng, name, 2),
        "tac_dung_khong_mong_muon": _sentences(rng, name, rng.randint(8, 16)),
        "huong_dan_cach_xu_tri_adr": _sentences(rng, name, 2),
        "lieu_luong_va_cach_dung": dose,
        "tuong_tac_thuoc": [", ".join(_name(rng, set()) for _ in range(12)) + " làm thay đổi nồng độ " + name + "."],
        "do_on_dinh_va_bao_quan": "Bảo quản dưới 30 °C, tránh ánh sáng.",
        "qua_lieu_va_xu_tri": _sentences(rng, name, 2),
        "ten_thuong_mai": f"{name.capitalize()}-S{rng.randint(1, 9)}.",
    }
    return Monograph.model_validate({"drug_id": slugify(title), "title": title, "index_aliases": [],
                                     "sections": sections})


def synthetic_monographs(count: int, seed: int) -> list[Monograph]:
    rng = random.Random(seed)
    used: set[str] = set()
    return [synthetic_monograph(rng, used, i) for i in range(count)]
