"""The invented world the store generator writes about: services, people, claim and body templates.

Every fact here is invented about invented services. Topics use deliberately disjoint vocabularies so
that bm25 and a bag-of-words embedder have something to discriminate: two topics sharing nouns would
put unrelated memories into a probe's candidate window.

Text that can land in a probe target (semantic and procedural claims, the neutral body sentences and
the element kits) carries no negation marker and no variant qualifier (`store_controls`), so a flipped
control is always divergent from its target. The caveat sentences, which do carry markers, are only
used by the other types.
"""

from __future__ import annotations

from typing import NamedTuple


class Topic(NamedTuple):
    service: str
    area: str
    resource: str
    tags: tuple[str, str]
    team: str
    anchor: str
    nouns: tuple[str, ...]
    verbs: tuple[str, str, str]
    past: tuple[str, str, str]
    lang: str
    code: str
    concept: tuple[str, str]
    abbr: tuple[str, str]
    metric: tuple[str, str]
    errcode: str


TOPICS: tuple[Topic, ...] = (
    Topic(
        "checkout-api",
        "oncall",
        "infra",
        ("deploy", "oncall"),
        "payments",
        "target group",
        ("connection drain", "deploy revert", "load balancer", "health check", "canary slice", "vip pool"),
        ("drains", "reverts", "deregisters"),
        ("drained", "reverted", "deregistered"),
        "bash",
        'aws elbv2 describe-target-health --target-group-arn "$TG" --query "TargetHealthDescriptions[].TargetHealth.State"',
        ("connection draining", "the delay in which a deregistered target finishes its open requests"),
        ("VIP", "virtual IP"),
        ("Drain window", "seconds"),
        "HTTP 502",
    ),
    Topic(
        "billing-service",
        "finance",
        "billing",
        ("billing", "invoicing"),
        "payments",
        "invoice run",
        ("usage interval", "proration rule", "dunning retry", "ledger entry", "tax quote", "credit note"),
        ("invoices", "prorates", "reconciles"),
        ("invoiced", "prorated", "reconciled"),
        "sql",
        "SELECT account_id, count(*) FROM usage_intervals WHERE period_end > now() - interval '1 day' GROUP BY 1;",
        ("interval compaction", "merging adjacent usage intervals into one billable span"),
        ("MRR", "monthly recurring revenue"),
        ("Invoice lag", "minutes"),
        "ERR_LEDGER_SKEW",
    ),
    Topic(
        "mobile-app",
        "release",
        "mobile",
        ("mobile", "release"),
        "mobile",
        "release train",
        ("crash cohort", "remote config", "build channel", "push token", "store review", "offline cart"),
        ("ships", "stages", "promotes"),
        ("shipped", "staged", "promoted"),
        "kotlin",
        'val cartSync = RemoteConfig.getBoolean("offline_cart_sync")',
        ("staged rollout", "a release exposed to a growing percentage of installs"),
        ("ANR", "application not responding"),
        ("Crash-free sessions", "percent"),
        "SIGABRT",
    ),
    Topic(
        "auth-service",
        "security",
        "identity",
        ("identity", "security"),
        "platform",
        "signing key",
        ("token rotation", "refresh grant", "session cookie", "audience claim", "jwks cache", "mfa prompt"),
        ("rotates", "revokes", "issues"),
        ("rotated", "revoked", "issued"),
        "go",
        'keys, err := jwks.Fetch(ctx, "https://auth.internal/.well-known/jwks.json")',
        ("key overlap", "the window in which both the outgoing and incoming signing keys verify"),
        ("JWKS", "JSON Web Key Set"),
        ("Key overlap", "hours"),
        "ERR_TOKEN_AUDIENCE",
    ),
    Topic(
        "search-index",
        "retrieval",
        "search",
        ("search", "indexing"),
        "discovery",
        "shard",
        ("shard rebuild", "analyzer chain", "stopword list", "segment merge", "query planner", "synonym map"),
        ("reindexes", "merges", "analyzes"),
        ("reindexed", "merged", "analyzed"),
        "json",
        '{"index": "products-v7", "refresh_interval": "30s", "number_of_replicas": 2}',
        ("segment merge", "folding small index segments into larger ones in the background"),
        ("BM25", "Best Matching 25"),
        ("Refresh interval", "seconds"),
        "ERR_SHARD_RELOCATING",
    ),
    Topic(
        "batch-loader",
        "pipelines",
        "data",
        ("pipeline", "throughput"),
        "data",
        "worker pool",
        ("backpressure", "chunk size", "commit fence", "dead letter", "replay cursor", "staging table"),
        ("throttles", "commits", "replays"),
        ("throttled", "committed", "replayed"),
        "python",
        "loader.run(source='s3://exports/daily/', chunk_rows=50_000, fence='commit')",
        ("commit fence", "the offset before which every chunk is durably written"),
        ("DLQ", "dead-letter queue"),
        ("Chunk rows", "rows"),
        "ERR_CHUNK_FENCE",
    ),
    Topic(
        "notification-worker",
        "delivery",
        "messaging",
        ("delivery", "retries"),
        "growth",
        "retry queue",
        ("delivery receipt", "bounce handling", "quiet hours", "digest window", "sender reputation", "template render"),
        ("retries", "suppresses", "batches"),
        ("retried", "suppressed", "batched"),
        "ts",
        "await queue.enqueue({ channel: 'email', template: 'digest', delayMs: 30_000 })",
        ("quiet hours", "the local-time window in which non-urgent messages are held"),
        ("SES", "Simple Email Service"),
        ("Retry backoff", "seconds"),
        "ERR_BOUNCE_HARD",
    ),
    Topic(
        "schema-migrator",
        "database",
        "postgres",
        ("migrations", "database"),
        "platform",
        "migration ledger",
        ("advisory lock", "column backfill", "lock timeout", "dry run", "expand step", "index build"),
        ("applies", "locks", "backfills"),
        ("applied", "locked", "backfilled"),
        "sql",
        "SET lock_timeout = '5s'; ALTER TABLE invoices ADD COLUMN settled_at timestamptz;",
        ("expand and contract", "shipping a schema change as additive steps around the code change"),
        ("DDL", "data definition language"),
        ("Lock timeout", "seconds"),
        "SQLSTATE 55P03",
    ),
    Topic(
        "cdn-edge",
        "caching",
        "networking",
        ("caching", "latency"),
        "platform",
        "edge node",
        ("cache invalidation", "purge fanout", "origin shield", "surrogate key", "stale window", "tls handshake"),
        ("invalidates", "purges", "revalidates"),
        ("invalidated", "purged", "revalidated"),
        "bash",
        'curl -s -X POST "$CDN_API/purge" -d \'{"surrogate_keys": ["catalog"]}\'',
        ("stale-while-revalidate", "serving a cached copy while a fresh one is fetched"),
        ("TTFB", "time to first byte"),
        ("Edge TTL", "seconds"),
        "HTTP 504",
    ),
    Topic(
        "feature-flags",
        "rollout",
        "experiments",
        ("rollout", "experiments"),
        "growth",
        "cohort",
        ("kill switch", "sticky bucket", "exposure event", "ramp step", "holdout group", "flag audit"),
        ("ramps", "buckets", "exposes"),
        ("ramped", "bucketed", "exposed"),
        "yaml",
        "flag: offline-cart-sync\nramp: [1, 5, 25, 50, 100]\nkill_switch: true",
        ("sticky bucketing", "hashing a user into the same variant on every evaluation"),
        ("SRM", "sample ratio mismatch"),
        ("Ramp step", "percent"),
        "ERR_FLAG_STALE",
    ),
    Topic(
        "cost-explorer",
        "finops",
        "finops",
        ("finops", "budgets"),
        "finance",
        "budget alarm",
        ("amortized spend", "tag allocation", "reservation coverage", "spend forecast", "egress bill", "idle volume"),
        ("allocates", "forecasts", "amortizes"),
        ("allocated", "forecast", "amortized"),
        "sql",
        "SELECT service, sum(amortized_cost) FROM cur_daily WHERE usage_month = '2026-05' GROUP BY 1;",
        ("amortization", "spreading an upfront commitment across the months it covers"),
        ("CUR", "cost and usage report"),
        ("Monthly budget", "dollars"),
        "ERR_TAG_UNALLOCATED",
    ),
    Topic(
        "metrics-agent",
        "observability",
        "observability",
        ("observability", "telemetry"),
        "platform",
        "collector",
        ("exporter scrape", "collector flush", "local buffer", "scrape interval", "label cardinality", "remote write"),
        ("scrapes", "flushes", "buffers"),
        ("scraped", "flushed", "buffered"),
        "yaml",
        "scrape_configs:\n  - job_name: checkout\n    scrape_interval: 15s",
        ("cardinality budget", "the number of distinct label sets a metric may carry"),
        ("OTLP", "OpenTelemetry protocol"),
        ("Scrape interval", "seconds"),
        "ERR_REMOTE_WRITE_429",
    ),
    Topic(
        "ledger-db",
        "database",
        "postgres",
        ("postgres", "database"),
        "platform",
        "primary",
        ("replica lag", "connection pool", "autovacuum", "wal archive", "replication slot", "pgbouncer"),
        ("replicates", "vacuums", "archives"),
        ("replicated", "vacuumed", "archived"),
        "sql",
        "SELECT client_addr, replay_lag FROM pg_stat_replication ORDER BY replay_lag DESC;",
        ("replication slot", "a server-side bookmark that keeps WAL until a replica consumes it"),
        ("WAL", "write-ahead log"),
        ("Replay lag", "seconds"),
        "SQLSTATE 53300",
    ),
    Topic(
        "event-bus",
        "streaming",
        "kafka",
        ("kafka", "streaming"),
        "data",
        "partition",
        (
            "consumer lag",
            "partition rebalance",
            "retention window",
            "log compaction",
            "offset commit",
            "schema registry",
        ),
        ("rebalances", "compacts", "commits"),
        ("rebalanced", "compacted", "committed"),
        "java",
        'props.put("session.timeout.ms", "45000");',
        ("cooperative rebalance", "moving partitions between consumers without stopping the group"),
        ("ISR", "in-sync replicas"),
        ("Consumer lag", "messages"),
        "REBALANCE_IN_PROGRESS",
    ),
    Topic(
        "tenant-router",
        "networking",
        "networking",
        ("routing", "tenancy"),
        "platform",
        "routing table",
        ("tenant shard", "sticky session", "rate limit", "circuit breaker", "header rewrite", "shard map"),
        ("routes", "sheds", "pins"),
        ("routed", "shed", "pinned"),
        "hcl",
        'resource "aws_lb_listener_rule" "tenant" {\n  priority = 120\n}',
        ("load shedding", "dropping low-priority requests so the rest finish in time"),
        ("RPS", "requests per second"),
        ("Shed threshold", "requests per second"),
        "HTTP 429",
    ),
    Topic(
        "report-exporter",
        "analytics",
        "data",
        ("reports", "exports"),
        "data",
        "export job",
        ("csv snapshot", "presigned link", "row cap", "schedule window", "column mapping", "tenant filter"),
        ("exports", "schedules", "signs"),
        ("exported", "scheduled", "signed"),
        "python",
        "job = exporter.schedule(tenant_id, fmt='csv', window='02:00-04:00')",
        ("presigned link", "a time-limited URL that grants read access to one object"),
        ("CSV", "comma-separated values"),
        ("Link lifetime", "minutes"),
        "ERR_ROW_CAP",
    ),
)

SCOPES = (
    "staging",
    "canary",
    "frankfurt",
    "singapore",
    "dublin",
    "ohio",
    "sandbox",
    "preprod",
    "shadow",
    "primary region",
    "failover region",
    "internal",
    "partner",
    "regulated",
    "trial",
    "greenfleet",
    "bluefleet",
    "edgefleet",
    "batchfleet",
    "streamfleet",
    "coldfleet",
    "oregon",
    "sydney",
)


class Person(NamedTuple):
    slug: str
    name: str
    role: str
    team: str


PEOPLE: tuple[Person, ...] = (
    Person("sanju", "Sanju Rao", "runs the payments on-call rotation and owns checkout-api", "payments"),
    Person("maya", "Maya Okafor", "owns billing-service and signs off every invoice run change", "payments"),
    Person("imani", "Imani Clarke", "owns the search relevance surface and the synonym maps", "discovery"),
    Person("dara", "Dara Voss", "keeps the migration ledger honest and reviews every DDL change", "platform"),
    Person("wren", "Wren Halloway", "reviews every incident timeline before it is published", "platform"),
    Person("theo", "Theo Brandt", "leads the mobile release train and the store review calendar", "mobile"),
    Person("priya", "Priya Raman", "owns secrets rotation and the security exception register", "platform"),
    Person("jonas", "Jonas Lindqvist", "runs the Postgres fleet and the replica failover drills", "platform"),
    Person("lena", "Lena Ortiz", "owns the data pipelines and the nightly export schedule", "data"),
    Person("ravi", "Ravi Menon", "owns cloud spend reporting and the budget alarms", "finance"),
)

AGENTS = ("agent:claude-fable-5", "agent:claude-sonnet-4-5", "agent:codex-mini", "agent:claude-fable-5")

# Claim templates. Fields: svc Svc noun scope n verb past anchor team person errcode k.
# Probe types (semantic, procedural): exactly one {n}, no negation marker, no qualifier.
CLAIMS: dict[str, tuple[tuple[str, tuple[int, ...]], ...]] = {
    "semantic": (
        ("The {svc} {noun} in {scope} is {past} every {n} minutes.", (2, 3, 5, 10, 15, 30)),
        ("The {scope} {noun} on {svc} is kept for {n} days before it is pruned.", (3, 7, 14, 30, 45, 90)),
        ("The {scope} {noun} on {svc} is sized for {n} concurrent workers.", (4, 8, 12, 16, 24, 32)),
        ("{Svc} in {scope} will retry the {noun} {n} times before paging {team}.", (2, 3, 4, 5, 6)),
        ("The {svc} {noun} in {scope} is owned by the {team} team and reviewed every {n} weeks.", (1, 2, 4, 6)),
    ),
    "procedural": (
        (
            "The {noun} on {svc} {scope} must be settled before the {anchor} is touched, then left for {n} minutes.",
            (2, 5, 10, 15),
        ),
        (
            "Before a {svc} deploy in {scope}, the {noun} must be drained and the {anchor} held for {n} seconds.",
            (30, 60, 90, 120, 300),
        ),
        (
            "To recover the {svc} {noun} in {scope}, the {anchor} should be restarted first and given {n} minutes to settle.",
            (3, 5, 10, 20),
        ),
        (
            "The {team} rotation should be paged when the {svc} {noun} in {scope} stays degraded for {n} minutes.",
            (5, 10, 15, 30),
        ),
        (
            "The {svc} {noun} check in {scope} should run with a {n} second lock timeout and retry on conflict.",
            (2, 5, 10),
        ),
    ),
    "episodic": (
        ("During the {scope} rollout the {svc} {noun} {past} {n} times before the alarm cleared.", (3, 4, 6, 9, 14)),
        ("The {svc} {noun} in {scope} stalled for {n} minutes after the {anchor} was restarted.", (4, 7, 12, 25, 40)),
        (
            "A {svc} deploy to {scope} left the {noun} degraded for {n} minutes until {person} reverted it.",
            (6, 11, 18, 35),
        ),
    ),
    "error_pattern": (
        (
            "A {svc} {noun} in {scope} that {verb} twice in {n} minutes is the signature of a stuck {anchor}.",
            (2, 5, 10),
        ),
        ("{errcode} from {svc} in {scope} means the {noun} ran out of headroom, not that the {anchor} is down.", (0,)),
        (
            "Timeouts on the {svc} {noun} in {scope} after {n} seconds are the {anchor} saturating, never the network.",
            (5, 10, 30, 60),
        ),
    ),
    "user_preference": (
        ("{person} wants {svc} {noun} reports from {scope} batched into one digest per day.", (0,)),
        ("{person} prefers {svc} changes in {scope} to ship behind a flag, never as a direct config edit.", (0,)),
        ("{person} asks for the {svc} {noun} numbers in {scope} as a table with the {anchor} column first.", (0,)),
    ),
    "agent_insight": (
        ("Reading the {svc} {noun} logs in {scope} first cuts the investigation to {n} steps.", (2, 3, 4)),
        ("Grepping for {errcode} in the {svc} {scope} logs finds the {noun} culprit faster than the dashboards.", (0,)),
        (
            "The {svc} {scope} dashboards lag the {noun} by about {n} seconds, so check the raw metrics first.",
            (15, 30, 60, 90),
        ),
    ),
    "verdict": (
        ("The {svc} {noun} change in {scope} was judged safe at a ramp of {n} percent.", (5, 10, 25, 50)),
        (
            "Moving the {svc} {noun} in {scope} behind the {anchor} was the right call; revert only on p99 regressions.",
            (0,),
        ),
        ("Rejected: raising the {svc} {noun} limit in {scope} above {n} without a load test.", (100, 200, 500)),
    ),
    "precedent": (
        ("The {svc} {scope} {noun} decision from sev{k} governs every later {anchor} change.", (0,)),
        (
            "When {svc} needed an exception for the {noun} in {scope}, {team} granted it for {n} days with a written rollback.",
            (14, 30, 60, 90),
        ),
    ),
    "arc": (
        ("Across {n} incidents the {svc} {noun} was reversible only while the {anchor} stayed quiet.", (3, 4, 5, 6)),
        ("Every {svc} {noun} problem in {scope} over {n} months traced back to the {anchor}.", (3, 6, 9)),
    ),
}

# Task templates: (title, claim). The claim states the done condition, as memhtml's own example does.
TASKS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    (
        "Move the {svc} {noun} in {scope} behind the new {anchor}",
        "The {svc} {noun} in {scope} runs behind the new {anchor}.",
        (0,),
    ),
    (
        "Alarm on the {svc} {noun} in {scope} at {n} percent of capacity",
        "The {svc} {noun} in {scope} raises an alarm at {n} percent of capacity.",
        (70, 80, 90),
    ),
    (
        "Write the {scope} recovery runbook for the {svc} {noun}",
        "The {scope} runbook explains how to recover the {svc} {noun} step by step.",
        (0,),
    ),
    (
        "Load-test the {svc} {anchor} in {scope} at {n}x traffic",
        "The {svc} {anchor} in {scope} has a load-test result at {n}x peak traffic.",
        (2, 3, 5),
    ),
    (
        "Remove the manual {noun} step from the {svc} {scope} deploy",
        "The {svc} {scope} deploy runs the {noun} step automatically.",
        (0,),
    ),
)

NEUTRAL_BODY = (
    "The {noun2} stays consistent while {svc} holds the {anchor} steady.",
    "Operators reach for this whenever a {area} question arrives mid-rotation.",
    "The {team} team confirmed the behaviour against the {scope} dashboards.",
    "It matters most during the weekly {area} review, when the {noun2} numbers are compared.",
    "The same shape shows up on the {noun2} whenever the {anchor} is busy.",
    "{person} walked through it with the agent while pairing on the {svc} backlog.",
)
CAVEAT_BODY = (
    "Do not restart the {anchor} while the {noun2} is still draining.",
    "The first two attempts to fix it failed because the {noun2} was cached.",
    "Nobody has reproduced it outside {scope}, so treat the numbers as local.",
    "The dashboard alone is not enough evidence; read the {svc} logs as well.",
)

DOC_TYPES = {
    "semantic": ("reference", "guide"),
    "procedural": ("runbook", "guide"),
    "episodic": ("postmortem", "incident-note"),
    "error_pattern": ("runbook", "postmortem"),
    "user_preference": ("preference",),
    "agent_insight": ("tip", "guide"),
    "verdict": ("decision",),
    "precedent": ("decision", "reference"),
    "arc": ("synthesis",),
    "task": ("ticket",),
}

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
