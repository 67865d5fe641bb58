# shellcheck shell=bash
# Sourced, not run: rocketmq_home DIR makes a RocketMQ home where every file a JVM writes stays:
# conf/, home/ (its user.home), logs/, and one file appender at INFO for each logback file
# RocketMQ reads (4.9.x does not start without its conf/logback_*.xml; 5.x's own
# rmq.logback.xml parses for seconds). java_in_home runs a JVM in such a home; broker_store_conf
# and broker_topic keep a broker's store in it.
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

# Becomes java (call it in a subshell) in home DIR, every path it writes inside DIR: small
# footprint flags first, then JAVA_ARGS (heap, more flags, -cp, the main class and its arguments).
java_in_home() { # DIR JAVA_ARGS...
  local home="$1"
  shift
  cd "$home" || exit
  exec env ROCKETMQ_HOME="$home" HOME="$home/home" java -XX:+UseSerialGC -XX:-UsePerfData \
    -Djava.net.preferIPv4Stack=true -Duser.home="$home/home" -Drocketmq.home.dir="$home" \
    -Drmq.logback.configurationFile="$home/conf/rmq.logback.xml" "$@"
}

# The broker.conf lines that keep a broker's store in DIR/store, with small mapped files.
broker_store_conf() { # DIR
  echo "storePathRootDir=$1/store"
  echo "storePathCommitLog=$1/store/commitlog"
  echo "mappedFileSizeCommitLog=67108864"
  echo "mappedFileSizeConsumeQueue=300000"
  # A shared machine's disk is often past the default 90 %, where a broker refuses messages.
  echo "diskMaxUsedSpaceRatio=95"
  echo "diskSpaceWarningLevelRatio=98"
}

# The broker with its store in DIR/store starts with TOPIC (4 queues), as in a cluster that has
# run for a while.
broker_topic() { # DIR TOPIC
  mkdir -p "$1/store/config"
  cat >"$1/store/config/topics.json" <<JSON
{"topicConfigTable":{"$2":{"topicName":"$2","readQueueNums":4,"writeQueueNums":4,"perm":6,"topicFilterType":"SINGLE_TAG","topicSysFlag":0,"order":false}},"dataVersion":{"counter":1,"timestamp":0}}
JSON
}
