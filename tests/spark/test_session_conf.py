"""The settings of a local session rankproof starts (no JVM needed)."""

from __future__ import annotations

from rankproof.spark.session import LOCAL_JAVA_OPTIONS, local_conf


def test_a_local_session_uses_the_quick_jit_unless_the_user_chose_jvm_options(monkeypatch, tmp_path):
    for name in ("JAVA_TOOL_OPTIONS", "PYSPARK_SUBMIT_ARGS", "SPARK_CONF_DIR", "SPARK_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SPARK_CONF_DIR", str(tmp_path))
    assert local_conf()["spark.driver.extraJavaOptions"] == LOCAL_JAVA_OPTIONS == "-XX:TieredStopAtLevel=1"
    (tmp_path / "spark-defaults.conf").write_text("spark.driver.extraJavaOptions -Xss4m\n")
    assert "spark.driver.extraJavaOptions" not in local_conf()
    (tmp_path / "spark-defaults.conf").unlink()
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-Xmx2g")
    assert "spark.driver.extraJavaOptions" not in local_conf()
