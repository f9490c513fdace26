"""Plain-Vietnamese explanations of each reason, shown to the clinician.

The text says what happened (a timeout is a timeout), never dresses a
failure up as a property of the answer.
"""

from __future__ import annotations

from duocthu_contracts.decisions import Reason

REASON_MESSAGES: dict[Reason, str] = {
    Reason.VERIFIED: "Câu trả lời đã được đối chiếu với nguồn trích dẫn.",
    Reason.MONOGRAPH_TEXT: "Nguyên văn mục chuyên luận.",
    Reason.POPULATION_REQUIRED: "Cần biết đối tượng (người lớn, trẻ em theo tuổi/cân nặng…) để trích đúng liều.",
    Reason.PATIENT_INFO_REQUIRED: "Cần thêm thông tin về người bệnh để trả lời.",
    Reason.DRUG_REQUIRED: "Chưa xác định được tên thuốc trong câu hỏi.",
    Reason.AMBIGUOUS_DRUG: "Tên thuốc khớp với nhiều chuyên luận; vui lòng chọn đúng thuốc.",
    Reason.CONDITION_SUBTYPE_REQUIRED: "Cần nêu rõ thể bệnh vì kết quả khác nhau theo thể bệnh.",
    Reason.GENERATOR_CLARIFY: "Cần làm rõ câu hỏi trước khi trả lời.",
    Reason.VISUAL_CHECK_REQUIRED: "Nguồn có bảng hoặc công thức cần đối chiếu trực tiếp với ảnh PDF; không tự động trích số liệu.",
    Reason.STAGE_NOT_IMPLEMENTED: "Một bước xử lý của hệ thống chưa được xây dựng nên không trả lời.",
    Reason.REQUEST_BUDGET_EXHAUSTED: "Hết thời gian xử lý cho lượt hỏi này; hệ thống không trả lời thay vì trả lời chưa kiểm chứng.",
    Reason.BUS_UNAVAILABLE: "Hệ thống truyền tin nội bộ đang mất kết nối nên câu hỏi chưa được xử lý; vui lòng thử lại sau ít phút.",
    Reason.STAGE_UNAVAILABLE: "Một bước xử lý của hệ thống hiện không chạy nên câu hỏi chưa được xử lý; vui lòng thử lại sau ít phút.",
    Reason.INTERNAL_ERROR: "Lỗi nội bộ khi xử lý lượt hỏi; hệ thống không trả lời.",
    Reason.CORPUS_NOT_READY: "Dữ liệu dược thư chưa sẵn sàng.",
    Reason.OUT_OF_SCOPE: "Câu hỏi nằm ngoài phạm vi tra cứu dược thư.",
    Reason.NON_HUMAN: "Dược thư chỉ áp dụng cho người; không trả lời về thuốc thú y.",
    Reason.PROMPT_EXTRACTION: "Yêu cầu này không thuộc phạm vi tra cứu thuốc.",
    Reason.SMALLTALK: "Xin chào! Hãy hỏi về một thuốc, ví dụ: “Chống chỉ định của metformin?”.",
    Reason.UNKNOWN_DRUG: "Không tìm thấy thuốc này trong dược thư; hệ thống không đoán sang thuốc gần giống.",
    Reason.UNSUPPORTED_REVERSE_RELATION: "Dược thư không được tra theo chiều “thuốc nào gây ra bệnh”; hệ thống không trả lời loại câu hỏi này.",
    Reason.DOSE_CALCULATION_NOT_SUPPORTED: "Hệ thống không tự tính liều; chỉ trích liều nguyên văn kèm đối tượng.",
    Reason.CLARIFY_LIMIT_REACHED: "Đã hỏi lại nhiều lần mà chưa đủ thông tin; vui lòng đặt lại câu hỏi đầy đủ.",
    Reason.NO_EVIDENCE: "Không tìm thấy nội dung phù hợp trong dược thư.",
    Reason.MISSING_PROVENANCE: "Nguồn tìm được thiếu thông tin trang in nên không được dùng.",
    Reason.RETRIEVAL_UNAVAILABLE: "Kho tra cứu tạm thời không sẵn sàng.",
    Reason.PROVIDER_UNAVAILABLE: "Mô hình ngôn ngữ tạm thời không sẵn sàng; hệ thống không trả lời.",
    Reason.MALFORMED_OUTPUT: "Mô hình trả về dữ liệu sai định dạng; câu trả lời bị loại.",
    Reason.EVIDENCE_INSUFFICIENT: "Bằng chứng tìm được chưa đủ để trả lời.",
    Reason.UNSUPPORTED_DRUG: "Câu trả lời nêu thuốc ngoài danh sách bằng chứng; câu trả lời bị loại.",
    Reason.UNGROUNDED_NUMBER: "Câu trả lời chứa con số không có nguyên văn trong nguồn trích dẫn; câu trả lời bị loại.",
    Reason.UNBOUND_QUANTITY: "Câu trả lời ghép con số hoặc đơn vị không đúng như một câu trong nguồn trích dẫn (sai đơn vị, đảo số hoặc ghép từ nhiều câu); câu trả lời bị loại.",
    Reason.POPULATION_MISMATCH: "Câu trả lời gán liều hoặc thông tin cho đối tượng mà đoạn nguồn không nêu; câu trả lời bị loại.",
    Reason.UNSUPPORTED_LABEL: "Nhãn đối tượng/đường dùng của câu trả lời không phải nhãn in trong đoạn nguồn; câu trả lời bị loại.",
    Reason.UNSUPPORTED_TERM: "Câu trả lời nêu thuật ngữ chuyên môn không có trong nguồn trích dẫn; câu trả lời bị loại.",
    Reason.INVALID_CITATION: "Câu trả lời trích dẫn nguồn không tồn tại; câu trả lời bị loại.",
    Reason.UNCITED_CLAIM: "Câu trả lời có ý không kèm trích dẫn; câu trả lời bị loại.",
    Reason.UNSUPPORTED_CLAIM: "Bước đối chiếu kết luận câu trả lời không khớp với nguồn; câu trả lời bị loại.",
    Reason.UNSUPPORTED_RANKING_CLAIM: "Câu trả lời xếp hạng thuốc (ví dụ “lựa chọn đầu tay”) mà nguồn không nêu; câu trả lời bị loại.",
    Reason.UNSUPPORTED_SAFETY_CLAIM: "Câu trả lời khẳng định an toàn/không có tương tác mà nguồn không nêu; câu trả lời bị loại.",
    Reason.INCOMPLETE_ANSWER: "Câu trả lời bỏ sót thông tin quan trọng có trong nguồn; câu trả lời bị loại.",
    Reason.JUDGE_UNAVAILABLE: "Bước đối chiếu ngữ nghĩa chưa được cấu hình hoặc không sẵn sàng; hệ thống không trả lời.",
    Reason.VISUAL_EVIDENCE_NOT_GENERATABLE: "Nguồn cần đối chiếu PDF không được dùng để sinh câu trả lời.",
    Reason.ANSWER_NOT_FROM_VERIFIER: "Một câu trả lời không đi qua bước kiểm chứng đã bị chặn; hệ thống không hiển thị nội dung chưa được kiểm chứng.",
    Reason.INVALID_VERDICT_SEAL: "Chữ ký của bước kiểm chứng trên câu trả lời không hợp lệ (nội dung có thể đã bị sửa đổi); hệ thống không hiển thị câu trả lời này.",
}


#: The stages' names as a clinician reads them in a ``stage_unavailable`` message.
STAGE_NAMES: dict[str, str] = {
    "understanding": "phân tích câu hỏi",
    "retrieval": "tra cứu dược thư",
    "generation": "soạn câu trả lời",
    "verifier": "kiểm chứng câu trả lời",
}


def stage_unavailable_message(stage: str) -> str:
    """The ``stage_unavailable`` text naming the stage that has no live replica."""
    label = STAGE_NAMES.get(stage, stage)
    return (f"Bước “{label}” ({stage}) hiện không có tiến trình nào hoạt động nên câu hỏi chưa được xử lý; "
            "vui lòng thử lại sau ít phút.")
