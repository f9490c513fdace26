"""Bad input fails with a clear error naming the problem, a non-zero exit code, and nothing released."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
from typer.testing import CliRunner

from duocthu_cli.main import app
from duocthu_ingest import IngestRequest, run_ingest
from duocthu_ingest.errors import BadInput
from tests.ingest.minibook import Book

runner = CliRunner()


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["ingest", *args, "--mode", "local"])
    return result.exit_code, result.output


@pytest.fixture
def encrypted(tmp_path: Path, mini_book: Book) -> Path:
    path = tmp_path / "encrypted.pdf"
    doc = pymupdf.open(mini_book.path)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="secret")
    doc.close()
    return path


@pytest.fixture
def truncated(tmp_path: Path, mini_book: Book) -> Path:
    path = tmp_path / "truncated.pdf"
    data = mini_book.path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    return path


@pytest.fixture
def no_monographs(tmp_path: Path) -> Path:
    path = tmp_path / "letter.pdf"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Kính gửi quý đồng nghiệp, đây là một lá thư, không phải dược thư.", fontname="helv")
    doc.save(path)
    doc.close()
    return path


def test_not_a_pdf(tmp_path: Path):
    path = tmp_path / "notes.pdf"
    path.write_text("chỉ là văn bản", encoding="utf-8")
    with pytest.raises(BadInput, match="không phải PDF"):
        run_ingest(IngestRequest(pdf=path))
    code, output = _cli(str(path), "--report", str(tmp_path / "r.json"))
    assert code == 1 and "không phải PDF" in output


def test_missing_file(tmp_path: Path):
    code, output = _cli(str(tmp_path / "absent.pdf"), "--report", str(tmp_path / "r.json"))
    assert code == 1 and "không tìm thấy" in output


def test_encrypted_pdf(encrypted: Path, tmp_path: Path):
    with pytest.raises(BadInput, match="mã hóa"):
        run_ingest(IngestRequest(pdf=encrypted))
    code, output = _cli(str(encrypted), "--report", str(tmp_path / "r.json"))
    assert code == 1 and "mã hóa" in output


def test_truncated_pdf(truncated: Path, tmp_path: Path):
    with pytest.raises(BadInput, match=r"cắt cụt|hỏng"):
        run_ingest(IngestRequest(pdf=truncated))
    code, output = _cli(str(truncated), "--report", str(tmp_path / "r.json"))
    assert code == 1 and "cắt cụt" in output


def test_pdf_without_monographs(no_monographs: Path, tmp_path: Path):
    with pytest.raises(BadInput, match="không tìm thấy chuyên luận"):
        run_ingest(IngestRequest(pdf=no_monographs))
    code, output = _cli(str(no_monographs), "--report", str(tmp_path / "r.json"))
    assert code == 1 and "không tìm thấy chuyên luận" in output


def test_bad_transcription_file(mini_book: Book, tmp_path: Path):
    sidecar = tmp_path / "t.json"
    sidecar.write_text('{"runs": [{"page": 1}]}', encoding="utf-8")
    with pytest.raises(BadInput, match="transcription"):
        run_ingest(IngestRequest(pdf=mini_book.path, transcriptions=sidecar))


def test_good_pdf_prints_the_gate_table_and_writes_the_report(mini_book: Book, tmp_path: Path):
    report = tmp_path / "out" / "ingest-report.json"
    code, output = _cli(str(mini_book.path), "--report", str(report))
    assert code == 0, output
    assert "sections_not_reassemblable" in output and "FAIL" not in output
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["released"] is True and data["segmentation"]["monographs"] == len(mini_book.expected)
    assert all(g["passed"] for g in data["gates"])
