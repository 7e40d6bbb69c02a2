// Deep links (DESIGN.md §7 "Links"): print/parse round trips with keys and filter values that
// hold every character a URL gives a meaning to, exact error messages, and the retention note.
// No database.
#include "DeepLink.h"
#include "Retention.h"

#include <QTest>

using namespace triage;

namespace {

const QStringList kOddKeys{
    QStringLiteral("k/1"), QStringLiteral("100%"), QStringLiteral("a#b"), QStringLiteral("what?"), QStringLiteral("x&y=z"),
    QStringLiteral("a+b"), QStringLiteral("two words"), QStringLiteral("clé-κλειδί-键"), QStringLiteral("<'\"&>"),
    QStringLiteral("tab\there"), QStringLiteral("a,b:c"), QStringLiteral("%2F already"), QStringLiteral("😀 emoji"),
    QStringLiteral("\\xff escaped"), QStringLiteral(" lead and trail ")};

UtcMicros at(const char *iso)
{
    return *parseUtcMicros(QString::fromLatin1(iso));
}

} // namespace

class TestDeepLink : public QObject {
    Q_OBJECT
private slots:
    void keyLinkRoundTrip()
    {
        for (const QString &key : kOddKeys) {
            const QString text = keyLink(key);
            QVERIFY2(text.startsWith(QStringLiteral("triage://key/")), qPrintable(text));
            // Nothing a URL gives a meaning to is left raw after the kind.
            const QString encoded = text.mid(13);
            for (QChar c : QStringLiteral("/%#?&+ ,:<>\"'\t"))
                if (c != QLatin1Char('%'))
                    QVERIFY2(!encoded.contains(c), qPrintable(text));
            QString error;
            const auto link = parseDeepLink(text, &error);
            QVERIFY2(link, qPrintable(error));
            QCOMPARE(link->kind, DeepLink::Kind::Key);
            QCOMPARE(link->key, key);
            QCOMPARE(printDeepLink(*link), text);
        }
        QCOMPARE(keyLink(QStringLiteral("k/1 a#b")), QStringLiteral("triage://key/k%2F1%20a%23b"));
        QCOMPARE(keyLink(QStringLiteral("é+%")), QStringLiteral("triage://key/%C3%A9%2B%25"));
    }

    void windowLinkRoundTrip()
    {
        for (const QString &value : kOddKeys) {
            WindowQuery q;
            q.from = at("2026-12-01T02:10:00.123456Z");
            q.to = at("2026-12-01T03:00:00Z");
            q.bizType = value;
            q.tenant = value + QStringLiteral("-t");
            q.keySubstring = value;
            q.taskId = value + QStringLiteral("-task");
            q.stores = {EventStore::Intent, EventStore::Console};
            q.kinds = {EventKind::IntentAttempt, EventKind::CompensationAttempt};
            q.statuses = {QStringLiteral("UNKNOWN"), value};
            const auto event = std::optional(std::pair(EventKind::TicketCreated, value));
            const QString text = windowLink(q, event);
            QString error;
            const auto link = parseDeepLink(text, &error);
            QVERIFY2(link, qPrintable(error + QStringLiteral(" in ") + text));
            QCOMPARE(link->kind, DeepLink::Kind::Window);
            QCOMPARE(link->query.from, q.from);
            QCOMPARE(link->query.to, q.to);
            QCOMPARE(link->query.bizType, q.bizType);
            QCOMPARE(link->query.tenant, q.tenant);
            QCOMPARE(link->query.keySubstring, q.keySubstring);
            QCOMPARE(link->query.taskId, q.taskId);
            QCOMPARE(link->query.stores, q.stores);
            QCOMPARE(link->query.kinds, q.kinds);
            QCOMPARE(link->query.statuses, q.statuses);
            QCOMPARE(link->event, event);
            QCOMPARE(printDeepLink(*link), text);
        }
    }

    void windowLinkExactText()
    {
        WindowQuery q;
        q.from = at("2026-12-01T10:10:00+08:00"); // always printed as absolute UTC
        q.to = at("2026-12-01T03:00:00Z");
        q.bizType = QStringLiteral("ticket_create");
        q.keySubstring = QStringLiteral("k/a b");
        q.taskId = QStringLiteral("task 7");
        q.statuses = {QStringLiteral("UNKNOWN"), QStringLiteral("a,b")};
        QCOMPARE(windowLink(q, std::pair(EventKind::IntentAttempt, QStringLiteral("42"))),
                 QStringLiteral("triage://window?from=2026-12-01T02%3A10%3A00.000000Z&to=2026-12-01T03%3A00%3A00.000000Z"
                                "&biz_type=ticket_create&key=k%2Fa%20b&task=task%207&statuses=UNKNOWN,a%2Cb&event=intent.attempt:42"));
        // Hand-written links: raw ':' in times, a zone offset, any parameter order, surrounding spaces.
        QString error;
        const auto link = parseDeepLink(QStringLiteral("  triage://window?to=2026-12-01T03:00:00Z&from=2026-12-01T10:10:00%2B08:00  "), &error);
        QVERIFY2(link, qPrintable(error));
        QCOMPARE(link->query.from, q.from);
        QCOMPARE(link->query.to, q.to);
        QVERIFY(!link->event);
        QCOMPARE(link->query.lookbackS, WindowQuery{}.lookbackS);
        // Separators encoded too (a tool that encodes every value whole): store and kind names and
        // the event's kind hold neither ',' nor ':', so they mean the same; a status keeps its "%2C".
        const auto encoded = parseDeepLink(QStringLiteral("triage://window?from=2026-12-01T02%3A10%3A00Z&to=2026-12-01T03%3A00%3A00Z"
                                                          "&stores=intent%2Cticket&kinds=intent.attempt%2Cticket.created"
                                                          "&statuses=a%2Cb&event=intent.attempt%3A4%3A2"),
                                           &error);
        QVERIFY2(encoded, qPrintable(error));
        QCOMPARE(encoded->query.stores, (QVector<EventStore>{EventStore::Intent, EventStore::Ticket}));
        QCOMPARE(encoded->query.kinds, (QVector<EventKind>{EventKind::IntentAttempt, EventKind::TicketCreated}));
        QCOMPARE(encoded->query.statuses, QStringList{QStringLiteral("a,b")});
        QVERIFY(encoded->event);
        QCOMPARE(encoded->event->first, EventKind::IntentAttempt);
        QCOMPARE(encoded->event->second, QStringLiteral("4:2"));
    }

    void errors_data()
    {
        QTest::addColumn<QString>("link");
        QTest::addColumn<QString>("message");
        const QString ok = QStringLiteral("triage://window?from=2026-12-01T02:00:00Z&to=2026-12-01T03:00:00Z");
        QTest::newRow("http") << QStringLiteral("https://example.invalid/x")
                              << QStringLiteral("not a triage link: \"https://example.invalid/x\" (expected triage://key/<key> or "
                                                "triage://window?from=…&to=…)");
        QTest::newRow("kind") << QStringLiteral("triage://incident/3")
                              << QStringLiteral("unknown triage link kind \"incident\" (expected triage://key/<key> or "
                                                "triage://window?from=…&to=…)");
        QTest::newRow("no key") << QStringLiteral("triage://key/") << QStringLiteral("the key link names no key");
        QTest::newRow("key query") << QStringLiteral("triage://key/a?b")
                                   << QStringLiteral("a key link takes no query or fragment (encode ? as %3F and # as %23)");
        QTest::newRow("key fragment") << QStringLiteral("triage://key/a#b")
                                      << QStringLiteral("a key link takes no query or fragment (encode ? as %3F and # as %23)");
        QTest::newRow("bad escape") << QStringLiteral("triage://key/100%") << QStringLiteral("key: not percent-encoded UTF-8");
        QTest::newRow("not utf-8") << QStringLiteral("triage://key/%FF") << QStringLiteral("key: not percent-encoded UTF-8");
        QTest::newRow("path") << QStringLiteral("triage://window/x?from=a")
                              << QStringLiteral("the window link has a path (expected triage://window?from=…&to=…)");
        QTest::newRow("fragment") << ok + QStringLiteral("#x") << QStringLiteral("the link has a fragment (encode # as %23)");
        QTest::newRow("no from") << QStringLiteral("triage://window?to=2026-12-01T03:00:00Z") << QStringLiteral("the window link has no from");
        QTest::newRow("no to") << QStringLiteral("triage://window?from=2026-12-01T03:00:00Z") << QStringLiteral("the window link has no to");
        QTest::newRow("bad time") << QStringLiteral("triage://window?from=yesterday&to=2026-12-01T03:00:00Z")
                                  << QStringLiteral("from: not an ISO time: \"yesterday\"");
        QTest::newRow("order") << QStringLiteral("triage://window?from=2026-12-01T03:00:00Z&to=2026-12-01T03:00:00Z")
                               << QStringLiteral("the window's start must be before its end");
        QTest::newRow("unknown") << ok + QStringLiteral("&lookback=5")
                                 << QStringLiteral("unknown link parameter \"lookback\" (known: from, to, biz_type, tenant, key, "
                                                   "task, stores, kinds, statuses, event)");
        QTest::newRow("twice") << ok + QStringLiteral("&from=2026-12-01T02:00:00Z") << QStringLiteral("link parameter \"from\" given twice");
        QTest::newRow("store") << ok + QStringLiteral("&stores=intent,disk") << QStringLiteral("stores: unknown store \"disk\"");
        QTest::newRow("kind name") << ok + QStringLiteral("&kinds=record.deleted") << QStringLiteral("kinds: unknown kind \"record.deleted\"");
        QTest::newRow("event shape") << ok + QStringLiteral("&event=42") << QStringLiteral("event: give <kind>:<id>");
        QTest::newRow("event kind") << ok + QStringLiteral("&event=row:42") << QStringLiteral("event: unknown kind \"row\"");
    }

    void errors()
    {
        QFETCH(QString, link);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!parseDeepLink(link, &error));
        QCOMPARE(error, message);
    }

    void purgeNote()
    {
        WindowQuery q;
        q.from = at("2026-11-01T00:00:00Z");
        q.to = at("2026-11-01T01:00:00Z");
        QCOMPARE(purgedWindowNote(q, at("2026-10-25T00:00:00Z")), QString());
        QCOMPARE(purgedWindowNote(q, q.from), QString());
        QCOMPARE(purgedWindowNote(q, at("2026-11-01T00:30:00.5Z")),
                 QStringLiteral("The idempotency store holds no record created before 2026-11-01 00:30:00 UTC (records expire): "
                                "events of this window before then may have been purged."));
        QCOMPARE(purgedWindowNote(q, std::nullopt),
                 QStringLiteral("The idempotency store holds no record created before this window's end (records expire): "
                                "events of this window before then may have been purged."));
    }
};

QTEST_GUILESS_MAIN(TestDeepLink)
#include "tst_deeplink.moc"
