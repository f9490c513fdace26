"""Deployment manifests, validated without a cluster or a Docker engine.

Every overlay is rendered with ``kubectl kustomize`` and every resource is
validated against the Kubernetes schemas (``kubernetes-validate``, strict);
then the invariants the issue names are asserted.  No image is built here
(there is no Docker engine): the Dockerfiles are checked as text.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from duocthu_gateway.settings import GatewaySettings
from duocthu_providers.llm.settings import AnswerChatSettings, JudgeChatSettings
from duocthu_retrieval.settings import RetrievalSettings
from duocthu_verifier import VerifierSettings

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
OVERLAYS = ("dev", "prod")
SERVICES = ("gateway", "understanding", "retrieval", "generation", "verifier", "ingest-worker")
#: Read by libraries from the environment, not by our settings classes.
LIBRARY_ENV = {"OTEL_EXPORTER_OTLP_ENDPOINT"}


@functools.cache
def render(overlay: str) -> tuple[dict[str, Any], ...]:
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is required to render the kustomize overlays (it ships with this machine kind)"
    out = subprocess.run([kubectl, "kustomize", str(K8S / "overlays" / overlay)], check=True, capture_output=True,
                         text=True).stdout
    return tuple(d for d in yaml.safe_load_all(out) if d)


def kinds(docs: tuple[dict[str, Any], ...], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def known_env() -> set[str]:
    names: set[str] = set(LIBRARY_ENV)
    for cls in (GatewaySettings, RetrievalSettings, VerifierSettings):
        names |= {f.upper() for f in cls.model_fields}
    for chat in (AnswerChatSettings, JudgeChatSettings):
        prefix = str(chat.model_config.get("env_prefix", ""))
        names |= {(prefix + f).upper() for f in chat.model_fields}
    return names


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_resource_validates_against_the_kubernetes_schemas(overlay: str) -> None:
    docs = render(overlay)
    assert len(docs) > 30
    for doc in docs:
        kubernetes_validate.validate(doc, "1.30", strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workloads_are_probed_bounded_and_non_root(overlay: str) -> None:
    docs = render(overlay)
    workloads = kinds(docs, "Deployment") + kinds(docs, "StatefulSet")
    assert {d["metadata"]["name"] for d in kinds(docs, "Deployment")} == set(SERVICES)
    for workload in workloads:
        pod = workload["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, workload["metadata"]["name"]
        for container in pod["containers"]:
            name = f"{workload['metadata']['name']}/{container['name']}"
            assert "readinessProbe" in container and "livenessProbe" in container, name
            assert container["resources"]["limits"]["cpu"] and container["resources"]["limits"]["memory"], name
            assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
            assert container["securityContext"]["capabilities"]["drop"] == ["ALL"], name
            if workload["kind"] == "Deployment":
                assert container["securityContext"]["readOnlyRootFilesystem"] is True, name
    hpas = {h["spec"]["scaleTargetRef"]["name"] for h in kinds(docs, "HorizontalPodAutoscaler")}
    pdbs = {p["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] for p in kinds(docs, "PodDisruptionBudget")}
    assert hpas == set(SERVICES) and pdbs == set(SERVICES)
    nats = next(s for s in kinds(docs, "StatefulSet") if s["metadata"]["name"] == "nats")
    assert nats["spec"]["replicas"] == 3
    assert "jetstream" in next(c for c in kinds(docs, "ConfigMap") if c["metadata"]["name"] == "nats-config")["data"][
        "nats.conf"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policies_admit_outside_traffic_to_the_gateway_only(overlay: str) -> None:
    docs = render(overlay)
    policies = kinds(docs, "NetworkPolicy")
    assert any(p["metadata"]["name"] == "default-deny" and p["spec"]["podSelector"] == {} for p in policies)
    from_outside = [p for p in policies for rule in p["spec"].get("ingress", [])
                    for peer in rule.get("from", []) if "namespaceSelector" in peer]
    assert [p["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/name"] for p in from_outside] == ["gateway"]
    [ingress] = kinds(docs, "Ingress")
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": "gateway", "port": {"number": 8080}}
    egress = {p["metadata"]["name"]: p for p in policies}
    assert egress["retrieval-to-qdrant"]["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/name"] == "retrieval"
    assert egress["gateway-to-postgres"]["spec"]["egress"][0]["ports"] == [{"port": 5432}]


def test_prod_uses_external_postgres_and_dev_runs_one() -> None:
    assert not [s for s in kinds(render("prod"), "StatefulSet") if s["metadata"]["name"] == "postgres"]
    assert [s for s in kinds(render("dev"), "StatefulSet") if s["metadata"]["name"] == "postgres"]
    secret = next(s for s in kinds(render("prod"), "Secret") if s["metadata"]["name"] == "duocthu-secrets")
    assert all(v == "CHANGE-ME" or "CHANGE-ME" in v for v in secret["stringData"].values())  # placeholders only


def test_argocd_application_points_at_an_overlay_that_renders() -> None:
    app = yaml.safe_load((ROOT / "deploy" / "argocd" / "application.yaml").read_text(encoding="utf-8"))
    path = app["spec"]["source"]["path"]
    assert path == "deploy/k8s/overlays/prod" and (ROOT / path / "kustomization.yaml").is_file()
    assert app["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    assert render(Path(path).name)


def test_compose_and_k8s_agree() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    for name, service in services.items():
        assert "healthcheck" in service, f"compose service {name} has no healthcheck"
    k8s_images = {c["image"] for d in kinds(render("prod"), "Deployment")
                  for c in d["spec"]["template"]["spec"]["containers"]}
    assert {services[s]["image"] for s in SERVICES} == k8s_images
    config = next(c for c in kinds(render("prod"), "ConfigMap") if c["metadata"]["name"] == "duocthu-config")
    k8s_env = set(config["data"]) | {e["name"] for d in kinds(render("prod"), "Deployment")
                                     for c in d["spec"]["template"]["spec"]["containers"] for e in c["env"]}
    compose_env = {key for s in SERVICES for key in services[s]["environment"]}
    unknown = (k8s_env | compose_env) - known_env()
    assert not unknown, f"environment keys no settings class reads: {sorted(unknown)}"


@pytest.mark.parametrize("service", SERVICES)
def test_dockerfiles_are_multi_stage_non_root_healthchecked_and_secret_free(service: str) -> None:
    text = (ROOT / "deploy" / "docker" / f"{service}.Dockerfile").read_text(encoding="utf-8")
    assert len(re.findall(r"^FROM ", text, re.MULTILINE)) == 2
    assert re.search(r"^USER 10001$", text, re.MULTILINE) and "HEALTHCHECK" in text
    assert not re.search(r"(PASSWORD|TOKEN|SECRET|AWS_)[A-Z_]*=", text)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_verdict_signing_key_reaches_the_verifier_only(overlay: str) -> None:
    docs = render(overlay)
    for deployment in kinds(docs, "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        secrets = {v["secret"]["secretName"] for v in pod.get("volumes", []) if "secret" in v}
        env = {e["name"] for c in pod["containers"] for e in c.get("env", [])}
        verifier = deployment["metadata"]["name"] == "verifier"
        assert ("duocthu-verdict-signing-key" in secrets) is verifier, deployment["metadata"]["name"]
        assert ("VERDICT_SIGNING_KEY_FILE" in env) is verifier, deployment["metadata"]["name"]
    config = next(c for c in kinds(docs, "ConfigMap") if c["metadata"]["name"] == "duocthu-config")
    assert config["data"]["VERDICT_PUBLIC_KEYS"] == "CHANGE-ME"  # a placeholder the gateway refuses to start with
    key = next(s for s in kinds(docs, "Secret") if s["metadata"]["name"] == "duocthu-verdict-signing-key")
    assert list(key["stringData"].values()) == ["CHANGE-ME"]
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    assert [name for name, s in compose["services"].items() if s.get("secrets")] == ["verifier"]
    assert compose["services"]["verifier"]["environment"]["VERDICT_SIGNING_KEY_FILE"].startswith("/run/secrets/")
    assert compose["services"]["gateway"]["environment"]["VERDICT_PUBLIC_KEYS"].startswith("${VERDICT_PUBLIC_KEYS:?")
