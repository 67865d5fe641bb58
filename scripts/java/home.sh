# shellcheck shell=bash
# Sourced, not run: rocketmq_home DIR makes a RocketMQ home where every file a JVM writes stays:
# conf/, home/ (its user.home), logs/, and one file appender at INFO for each logback file
# RocketMQ reads (4.9.x does not start without its conf/logback_*.xml; 5.x's own
# rmq.logback.xml parses for seconds).
rocketmq_home() { # DIR
  local file package
  mkdir -p "$1/conf" "$1/home" "$1/logs"
  for file in logback_namesrv logback_broker logback_tools rmq.logback; do
    package=ch.qos.logback
    [ "$file" = rmq.logback ] && package=org.apache.rocketmq.logging.ch.qos.logback
    cat >"$1/conf/$file.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="$package.core.FileAppender">
    <file>$1/logs/$file.log</file>
    <append>true</append>
    <encoder><pattern>%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level %logger{32} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
XML
  done
}
