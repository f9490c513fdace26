"""The Vietnamese cue lexicon: which words ask for which section, population, route, relation or guard.

All patterns are matched on the *folded* question (lower case, diacritics
removed) so that a question typed without diacritics reads the same; each
pattern is written folded.  Order matters where cues overlap: the first
matching section wins ("tác dụng phụ" before "tác dụng").
"""

from __future__ import annotations

import re

from duocthu_contracts.frame import ConditionRelation
from duocthu_contracts.sections import SectionKey


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


SECTION_CUES: tuple[tuple[re.Pattern[str], SectionKey], ...] = (
    (_c(r"\bchong chi dinh\b|\bkhong (duoc|nen) (dung|su dung|uong)\b|\bcam dung\b|\bkhi nao khong\b"),
     SectionKey.CHONG_CHI_DINH),
    (_c(r"\btac dung (phu|khong mong muon)\b|\badr\b|\bphan ung co hai\b|\bgay (ra )?(tac dung|phan ung)\b"),
     SectionKey.TAC_DUNG_KHONG_MONG_MUON),
    (_c(r"\bxu tri (adr|tac dung phu)\b"), SectionKey.HUONG_DAN_CACH_XU_TRI_ADR),
    (_c(r"\bqua lieu\b|\bngo doc\b|\buong (qua nhieu|nham|gap doi)\b|\bdung qua lieu\b"), SectionKey.QUA_LIEU_VA_XU_TRI),
    (_c(r"\btuong tac\b|\bdung (chung|cung)\b|\buong (chung|cung)\b|\bphoi hop\b|\bket hop\b"),
     SectionKey.TUONG_TAC_THUOC),
    (_c(r"\bcho con bu\b|\bcho bu\b|\bnuoi con bang sua me\b|\bsua me\b"), SectionKey.THOI_KY_CHO_CON_BU),
    (_c(r"\bmang thai\b|\bco thai\b|\bco bau\b|\bbau\b|\bthai ky\b|\bthai phu\b"), SectionKey.THOI_KY_MANG_THAI),
    (_c(r"\bthan trong\b|\bluu y\b|\bcan chu y\b|\bcanh bao\b"), SectionKey.THAN_TRONG),
    (_c(r"\bbao quan\b|\bdo on dinh\b|\bde (o )?dau\b|\bnhiet do\b|\bhan dung\b"), SectionKey.DO_ON_DINH_VA_BAO_QUAN),
    (_c(r"\btuong ky\b|\bpha (chung|lan)\b"), SectionKey.TUONG_KY),
    (_c(r"\blieu\b|\bliều\b|\bcach dung\b|\bdung the nao\b|\buong the nao\b|\bbao nhieu (mg|vien|lan)\b|"
        r"\bmay (vien|lan)\b|\buong may\b|\bdung may\b|\bmg/kg\b"), SectionKey.LIEU_LUONG_VA_CACH_DUNG),
    (_c(r"\bchi dinh\b|\bdieu tri (benh )?gi\b|\btri (benh )?gi\b|\bdung de (lam )?gi\b|\bcong dung\b|"
        r"\bdung (cho|trong) (benh|truong hop) (gi|nao)\b|\bchua (benh )?gi\b"), SectionKey.CHI_DINH),
    (_c(r"\bduoc dong hoc\b|\bhap thu\b|\bthai tru\b|\bchuyen hoa\b|\bnua doi\b|\bsinh kha dung\b"),
     SectionKey.DUOC_DONG_HOC),
    (_c(r"\bco che\b|\bduoc ly\b|\btac dong (len|vao)\b"), SectionKey.DUOC_LY_VA_CO_CHE_TAC_DUNG),
    (_c(r"\bdang (thuoc|bao che)\b|\bham luong\b|\bvien (bao nhieu|may) mg\b|\bco dang\b|\bnong do\b"),
     SectionKey.DANG_THUOC_VA_HAM_LUONG),
    (_c(r"\bten thuong mai\b|\bbiet duoc\b|\bten (thuoc )?(khac|bien duoc)\b|\bhang nao\b"), SectionKey.TEN_THUONG_MAI),
    (_c(r"\bma atc\b|\batc\b"), SectionKey.MA_ATC),
    (_c(r"\bnhom (thuoc )?(nao|gi)\b|\bloai thuoc\b|\bthuoc nhom\b|\bthuoc loai\b"), SectionKey.LOAI_THUOC),
    (_c(r"\bten (chung )?quoc te\b|\binn\b"), SectionKey.TEN_CHUNG_QUOC_TE),
    (_c(r"\bquy che\b|\bthuoc (doc|gay nghien|huong than|ke don)\b"), SectionKey.THONG_TIN_QUY_CHE),
)

#: "Tóm tắt / tổng quan / thông tin chung về X": the fixed overview, whatever section word follows.
OVERVIEW = _c(r"\b(tom tat|tong quan|thong tin chung|nhung diem chinh|diem chinh|tong hop thong tin)\b")
INTERACTION = _c(r"\btuong tac\b|\bdung (chung|cung)( voi)?\b|\buong (chung|cung)( voi)?\b|\bphoi hop\b|\bket hop\b")
DOSE = _c(r"\blieu\b|\bbao nhieu (mg|vien|lan|ml)\b|\bmay (vien|lan)\b|\buong may\b|\bmg/kg\b|\bdung the nao\b")
DOSE_CALC = _c(r"\btinh (lieu|giup|toan)\b|\bquy doi\b|\bdoi (ra|sang) (mg|ml)\b")
PEDIATRIC = _c(r"\btre (em|nho|so sinh)\b|\btre\b|\bcho (be|con|tre)\b|\bbe\b|\bem be\b|\bchau\b")
ELDERLY = _c(r"\bnguoi (cao tuoi|gia)\b|\bcu ong\b|\bcu ba\b")
ADULT = _c(r"\bnguoi lon\b")
RENAL = _c(r"\bsuy than\b|\bbenh than\b|\bclcr\b|\bcrcl\b|\bdo thanh thai\b")
HEPATIC = _c(r"\bsuy gan\b|\bxo gan\b|\bbenh gan\b|\bchild[- ]?pugh\b")
ROUTES: tuple[tuple[re.Pattern[str], str], ...] = (
    (_c(r"\btiem tinh mach\b|\btruyen tinh mach\b|\btiem truyen\b|\btruyen\b"), "tiêm tĩnh mạch"),
    (_c(r"\btiem bap\b"), "tiêm bắp"),
    (_c(r"\bduong uong\b|\buong\b|\bvien\b"), "đường uống"),
    (_c(r"\bdat truc trang\b|\bduong truc trang\b|\bvien dat\b|\bvien dan\b"), "đường trực tràng"),
    (_c(r"\bkhi dung\b|\bxit\b|\bhit\b"), "đường hô hấp"),
    (_c(r"\bboi\b|\bdung ngoai\b"), "dùng ngoài"),
)

RELATIONS: tuple[tuple[re.Pattern[str], ConditionRelation], ...] = (
    (_c(r"\bchong chi dinh\b|\bkhong (duoc|nen) dung (cho|khi|o)\b|\bcam dung\b"), ConditionRelation.CONTRAINDICATED),
    (_c(r"\bgay (ra )?\b|\blam tang nguy co\b|\bgay nen\b|\bdan den\b"), ConditionRelation.CAUSES),
    (_c(r"\bdieu tri\b|\bchua\b|\btri\b|\bdung (cho|trong|de)\b|\bgiam\b|\bha\b|\bchi dinh\b"),
     ConditionRelation.TREATS),
)
#: "Thuốc nào gây X" — asks the book in a direction it is not indexed by (seed 003 §12.5).
REVERSE_RELATION = _c(r"\bthuoc (nao|gi)\b.*\b(gay (ra )?|lam tang nguy co|dan den|co the gay)\b|"
                      r"\bnhung thuoc (nao|gi) (co the )?gay\b")
CONDITION_TO_DRUG = _c(
    r"\b(thuoc (nao|gi)|khang sinh (nao|gi)|dung (thuoc )?gi|uong (thuoc )?gi|nen dung gi|co thuoc nao|nhung thuoc nao|lua chon thuoc|"
    r"thuoc (tri|dieu tri|chua|dung cho|dung trong|chi dinh cho))\b")
#: The words around a condition in "X dùng thuốc gì?" / "Thuốc trị X?" — removed to leave the condition.
CONDITION_FRAME_WORDS = _c(
    r"\b(thi |nen )?(dung|uong|su dung) (nhung )?(thuoc|khang sinh) (nao|gi)\b|\b(nhung |co )?thuoc (nao|gi)( duoc)?"
    r"( (dung|chi dinh|dieu tri|tri|chua))?( (cho|trong|de))?\b|\bthuoc (tri|dieu tri|chua|dung cho|dung trong|"
    r"chi dinh cho)\b|\b(dieu tri|chua|tri)\b|\b(dung|chi dinh) (cho|trong|de)\b|\b(de )?kiem soat\b|\bnen\b|"
    r"^(co the )?((dung|uong|su dung) )?(nhung )?thuoc\b|\bthuoc nao\b|\bco the (dung|uong|can nhac)\b|"
    r"\b(thuoc )?nao(?=\W*$)")
CONDITION_LEAD = _c(r"^(benh nhan|nguoi benh|nguoi bi|nguoi|bi|mac|khi bi|truong hop)\s+")
CONDITION_CUT = _c(r"\s+(co|kem|kem theo|dang|va co)\s+|\s*,")
CONDITION_PHRASE = _c(
    r"\b(?:dieu tri|chua|tri|dung cho|dung trong|cho nguoi bi|cho benh nhan|khi bi|bi|de tri|danh cho)\s+"
    r"(?P<condition>[a-z0-9 ,/-]+?)\s*(?:\?|$|\.|\bthi\b|\bo nguoi\b|\bo tre\b|\bcho nguoi\b|\bkhi\b|\bneu\b|"
    r"\bduoc khong\b|\bkhong\b|\bnao\b|\bgi\b)")

#: The condition a dose is asked for ("liều ibuprofen trong gút cấp", "… cho người lớn bị gút cấp", "… diệt
#: Helicobacter pylori"): the book labels some dose lines with the condition they are for.
DOSE_CONDITION = _c(
    r"\b(?:trong|khi bi|bi|mac|de (?:dieu )?tri|dieu tri|diet|chua|tri)\s+(?P<condition>[a-z0-9 /-]+?)\s*"
    r"(?:\?|$|\.|,|\bthi\b|\bo nguoi\b|\bo tre\b|\bcho\b|\bkhi\b|\bneu\b|\bla\b|\bbao nhieu\b|\bnhu the nao\b|"
    r"\bduong\b|\blieu\b)")
#: What "trong …" says when it is not a condition (time spans and doses).
NOT_A_CONDITION = _c(r"^(ngay|\d|mot|moi|bao lau|thoi gian|tuan|thang|gio|24|thai ky|thoi ky|luc|khi)\b")

PROMPT_EXTRACTION = _c(
    r"\b(system prompt|prompt he thong|loi nhac he thong|chi dan he thong|huong dan he thong|"
    r"bo qua (moi|cac|tat ca)? ?(quy tac|huong dan|chi dan)|ignore (all |the )?(previous|above|prior)|"
    r"reveal your|developer mode|jailbreak|dan mode|in ra (toan bo )?(prompt|quy tac)|"
    r"quen (het|di) (quy tac|huong dan))\b")
#: Matched on the marked (diacritics kept) text: folded "bo", "ga", "gia" collide with "bỏ", "gà", "già".
NON_HUMAN_MARKED = _c(r"\b(chó|mèo|bò|lợn|heo|gà|ngựa|dê|cún|thú y|thú cưng|vật nuôi|gia súc|gia cầm)\b")
NON_HUMAN_FOLDED = _c(r"\b(thu y|thu cung|vat nuoi|gia suc|gia cam|con meo|chu cho|con lon|"
                      r"meo nha)\b")
OUT_OF_SCOPE_MARKED = _c(r"\bgiá\b|\bmua\b|\bgiá rẻ\b|\bbán ở đâu\b")
OUT_OF_SCOPE_FOLDED = _c(r"\b(bao nhieu tien|mua o dau|ban o dau|nha thuoc nao ban|thoi tiet|bong da|chung khoan|"
                         r"khuyen mai|dat hang|xo so|tu vi|nau an|cong thuc nau|gia thuoc|gia ban)\b")
SMALLTALK = _c(r"^(xin chao|chao( ban)?|hello|hi|cam on( ban)?|thanks|ban la ai|ban ten gi|tam biet)\b")
FOLLOW_UP = _c(r"\b(thuoc (do|nay|tren|vua roi)|no|con .+ thi sao|the con|con thi sao|vay con|thi sao)\b")
NEW_CASE = _c(r"\b(truong hop khac|benh nhan khac|cau hoi khac|hoi (cai|chuyen) khac|chuyen sang)\b")
