// BusinessId (DESIGN.md §4 "Business ids"): an id is the exact text the database returned,
// compared as text, ordered numerically only when both are decimal integers, printed in JSON
// as a number only when it is a canonical integer. Pure; no database.
#include "BusinessIdTestUtil.h"
#include "CanonicalTicket.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QUuid>

#include <algorithm>

using namespace triage;

class TestBusinessId : public QObject {
    Q_OBJECT

private slots:
    void integerText();
    void uuidText();
    void equalityAndHash();
    void ordering();
    void fromColumn();
    void json();
    void snapshotNamesText();
};

void TestBusinessId::integerText()
{
    const BusinessId id = BusinessId::fromInteger(42);
    QCOMPARE(id.text(), QStringLiteral("42"));
    QCOMPARE(id.toInteger(), std::optional<qint64>(42));
    QVERIFY(!id.isEmpty());
    QCOMPARE(BusinessId::fromInteger(-7).text(), QStringLiteral("-7"));
    QCOMPARE(BusinessId::fromInteger(std::numeric_limits<qint64>::max()).toInteger(),
             std::optional<qint64>(std::numeric_limits<qint64>::max()));
    // Only canonical decimal integers are numbers; the text is never re-spelled.
    for (const char *text : {"042", "+42", " 42", "42 ", "4.0", "-0", "", "-", "1e3", "9223372036854775808"})
        QVERIFY2(!BusinessId(QString::fromLatin1(text)).toInteger(), text);
    QCOMPARE(BusinessId(QStringLiteral("042")).text(), QStringLiteral("042"));
    QCOMPARE(BusinessId(QStringLiteral("18446744073709551615")).toUnsigned(), std::optional<quint64>(18446744073709551615ULL));
    QVERIFY(BusinessId().isEmpty());
}

void TestBusinessId::uuidText()
{
    const QString text = QStringLiteral("0b9e6c1e-3f0a-4a57-9d0e-2f6a1c3b7d11");
    const BusinessId id(text);
    QCOMPARE(id.text(), text);
    QVERIFY(!id.toInteger());
    QCOMPARE(id, BusinessId(text));
    QVERIFY(id != BusinessId(text.toUpper())); // opaque: compared as text
}

void TestBusinessId::equalityAndHash()
{
    QVERIFY(BusinessId::fromInteger(42) == BusinessId(QStringLiteral("42")));
    QVERIFY(BusinessId(QStringLiteral("42")) != BusinessId(QStringLiteral("042")));
    QHash<BusinessId, int> h;
    h.insert(BusinessId(QStringLiteral("42")), 1);
    h.insert(BusinessId(QStringLiteral("042")), 2);
    h.insert(BusinessId::fromInteger(42), 3);
    QCOMPARE(h.size(), 2);
    QCOMPARE(h.value(BusinessId(QStringLiteral("42"))), 3);
    QCOMPARE(qHash(BusinessId(QStringLiteral("T-1")), 7), qHash(BusinessId(QStringLiteral("T-1")), 7));
}

void TestBusinessId::ordering()
{
    // Numeric order when both are decimal integers (any length), else text order, integers first.
    QVector<BusinessId> ids{BusinessId(QStringLiteral("T-2")), bid(10),          bid(9),
                            BusinessId(QStringLiteral("123456789012345678901234567890")),
                            bid(-3),                           bid(-20),         BusinessId(QStringLiteral("T-10")),
                            BusinessId(QStringLiteral("042")), bid(0)};
    std::sort(ids.begin(), ids.end());
    QStringList texts;
    for (const BusinessId &id : ids)
        texts << id.text();
    QCOMPARE(texts, (QStringList{"-20", "-3", "0", "9", "10", "123456789012345678901234567890", "042", "T-10", "T-2"}));
    QVERIFY(bid(9) < bid(10));
    QVERIFY(!(bid(10) < bid(10)));
    QVERIFY(bid(10) <= bid(10));
    QVERIFY(bid(-1) < bid(0));
    QVERIFY(bid(-10) < bid(-9));
    QVERIFY(BusinessId(QStringLiteral("T-10")) < BusinessId(QStringLiteral("T-2"))); // text order
}

void TestBusinessId::fromColumn()
{
    QCOMPARE(BusinessId::fromColumn(QVariant(qint64(9007199254740993))).text(), QStringLiteral("9007199254740993"));
    QCOMPARE(BusinessId::fromColumn(QVariant(qint64(-5))).text(), QStringLiteral("-5"));
    QCOMPARE(BusinessId::fromColumn(QVariant(quint64(18446744073709551615ULL))).text(), QStringLiteral("18446744073709551615"));
    QCOMPARE(BusinessId::fromColumn(QVariant(int(42))).text(), QStringLiteral("42"));
    QCOMPARE(BusinessId::fromColumn(QVariant(QStringLiteral(" 0042 "))).text(), QStringLiteral(" 0042 ")); // unchanged
    QCOMPARE(BusinessId::fromColumn(QVariant(QByteArray("T-\xc3\xa9"))).text(), QStringLiteral("T-\u00e9"));
    const QUuid u = QUuid::fromString(QStringLiteral("{0B9E6C1E-3F0A-4A57-9D0E-2F6A1C3B7D11}"));
    QCOMPARE(BusinessId::fromColumn(QVariant(u)).text(), QStringLiteral("0b9e6c1e-3f0a-4a57-9d0e-2f6a1c3b7d11"));
    QVERIFY(BusinessId::fromColumn(QVariant()).isEmpty());
    QVERIFY(BusinessId::fromColumn(QVariant(QMetaType::fromType<qint64>())).isEmpty()); // SQL NULL of a BIGINT
    QVERIFY(BusinessId::fromColumn(QVariant(QMetaType::fromType<QString>())).isEmpty());
}

void TestBusinessId::json()
{
    auto compact = [](const BusinessId &id) {
        return QJsonDocument(QJsonArray{id.toJson()}).toJson(QJsonDocument::Compact);
    };
    QCOMPARE(compact(bid(42)), QByteArray("[42]"));
    // Exact above 2^53 (a number, never through a double).
    QCOMPARE(compact(BusinessId(QStringLiteral("9007199254740993"))), QByteArray("[9007199254740993]"));
    QCOMPARE(compact(BusinessId(QStringLiteral("042"))), QByteArray("[\"042\"]"));
    QCOMPARE(compact(BusinessId(QStringLiteral("T-7"))), QByteArray("[\"T-7\"]"));
    QCOMPARE(compact(BusinessId(QStringLiteral("99999999999999999999"))), QByteArray("[\"99999999999999999999\"]"));
}

void TestBusinessId::snapshotNamesText()
{
    // A snapshot's ticket_id: the integer literal as written (never through a double) or the
    // string's value, compared as opaque ids.
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":9007199254740993}")),
             std::optional<BusinessId>(BusinessId(QStringLiteral("9007199254740993"))));
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":\"0b9e6c1e-3f0a-4a57-9d0e-2f6a1c3b7d11\"}")),
             std::optional<BusinessId>(BusinessId(QStringLiteral("0b9e6c1e-3f0a-4a57-9d0e-2f6a1c3b7d11"))));
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":\"0042\"}")),
             std::optional<BusinessId>(BusinessId(QStringLiteral("0042"))));
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"a\":{\"ticket_id\":1},\"ticket_id\" : -12 }")), optBid(-12));
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":\"\"}")), std::nullopt);
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":1e3}")), std::nullopt);
    QCOMPARE(snapshotNamedTicketId(QStringLiteral("{\"ticket_id\":null}")), std::nullopt);
}

QTEST_GUILESS_MAIN(TestBusinessId)
#include "tst_business_id.moc"
