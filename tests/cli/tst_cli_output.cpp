// Unit tests of triagectl's output formats (no database): RFC 4180 CSV, aligned tables,
// JSON forms of queue rows and key details.
#include "CsvWriter.h"
#include "JsonExport.h"
#include "TextTable.h"
#include "Queue.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace triage;
using namespace triage::ctl;

class TstCliOutput : public QObject {
    Q_OBJECT
private slots:
    void csvField_data()
    {
        QTest::addColumn<QString>("in");
        QTest::addColumn<QString>("out");
        QTest::newRow("plain") << "ticket:create:acme:1" << "ticket:create:acme:1";
        QTest::newRow("empty") << "" << "";
        QTest::newRow("comma") << "a,b" << "\"a,b\"";
        QTest::newRow("quote") << "say \"hi\"" << "\"say \"\"hi\"\"\"";
        QTest::newRow("newline") << "a\nb" << "\"a\nb\"";
        QTest::newRow("cr") << "a\rb" << "\"a\rb\"";
        QTest::newRow("leading space") << " a" << "\" a\"";
        QTest::newRow("non-ascii") << QString::fromUtf8("zürich") << QString::fromUtf8("zürich");
    }
    void csvField()
    {
        QFETCH(QString, in);
        QFETCH(QString, out);
        QCOMPARE(CsvWriter::field(in), out);
    }

    void csvRecord()
    {
        QCOMPARE(CsvWriter::record({QStringLiteral("a"), QString(), QStringLiteral("x,\"y\"")}),
                 QByteArray("a,,\"x,\"\"y\"\"\"\r\n"));
        QCOMPARE(json_export::queueCsvHeader().join(QLatin1Char(',')),
                 QStringLiteral("idem_key,source,biz_type,action,status,created_at,updated_at,expire_at,age_seconds,id,"
                                "task_id,step_id"));
    }

    void textTable()
    {
        TextTable t({QStringLiteral("A"), QStringLiteral("NUM"), QStringLiteral("LAST")});
        t.alignRight(1);
        t.addRow({QStringLiteral("xyz"), QStringLiteral("7"), QStringLiteral("line\nbreak")});
        t.addRow({QStringLiteral("q"), QStringLiteral("1234"), QString()});
        // Control characters are escaped, never sent raw to the terminal (NUL, ESC, BEL).
        t.addRow({QStringLiteral("n") + QChar(0) + u'l', QStringLiteral("0"), QStringLiteral("\x1b[2J\a")});
        QCOMPARE(t.rowCount(), 3);
        QCOMPARE(QString::fromUtf8(t.render()), QStringLiteral("A      NUM  LAST\n"
                                                               "xyz      7  line\\nbreak\n"
                                                               "q     1234\n"
                                                               "n\\0l     0  \\u{001B}[2J\\u{0007}\n"));

        // Wide and combining characters: columns line up on the terminal, not by QChar count
        // ("ｂｏｂ" is full-width: 6 columns; "José" spelled with a combining accent: 4; "审计": 4).
        QCOMPARE(TextTable::displayWidth(QStringLiteral("\uFF42\uFF4F\uFF42")), 6);
        QCOMPARE(TextTable::displayWidth(QStringLiteral("Jose\u0301")), 4);
        QCOMPARE(TextTable::displayWidth(QStringLiteral("\u5BA1\u8BA1")), 4);
        QCOMPARE(TextTable::displayWidth(QStringLiteral("alice")), 5);
        TextTable w({QStringLiteral("OPERATOR"), QStringLiteral("N"), QStringLiteral("NOTE")});
        w.alignRight(1);
        w.addRow({QStringLiteral("\uFF42\uFF4F\uFF42"), QStringLiteral("1"), QStringLiteral("x")});
        w.addRow({QStringLiteral("Jose\u0301"), QStringLiteral("22"), QStringLiteral("y")});
        w.addRow({QStringLiteral("\u5BA1\u8BA1\u5458\u7532"), QStringLiteral("3"), QStringLiteral("z")});
        QCOMPARE(QString::fromUtf8(w.render()), QStringLiteral("OPERATOR   N  NOTE\n"
                                                               "\uFF42\uFF4F\uFF42     1  x\n"
                                                               "Jose\u0301      22  y\n"
                                                               "\u5BA1\u8BA1\u5458\u7532   3  z\n"));
    }

    void queueRowJson()
    {
        QueueRow r;
        r.source = QueueSource::Record;
        r.id = 9007199254740993; // > 2^53: must stay exact
        r.idemKey = QStringLiteral("ticket:create:acme:1");
        r.bizType = QStringLiteral("ticket_create");
        r.status = QStringLiteral("PROCESSING");
        r.createdAt = QStringLiteral("2026-01-02T03:04:05.123456Z");
        r.updatedAt = r.createdAt;
        r.ageSeconds = 12.5;
        QJsonObject o = json_export::queueRow(r);
        QCOMPARE(o.value(QStringLiteral("source")).toString(), QStringLiteral("record"));
        QVERIFY(o.value(QStringLiteral("action")).isNull());
        QVERIFY(o.value(QStringLiteral("expire_at")).isNull()); // null QString = SQL NULL
        QVERIFY(o.value(QStringLiteral("task_id")).isNull());
        QCOMPARE(o.value(QStringLiteral("age_seconds")).toDouble(), 12.5);
        QVERIFY(QJsonDocument(o).toJson(QJsonDocument::Compact).contains("\"id\":9007199254740993"));
        const QStringList csv = json_export::queueCsvFields(r);
        QCOMPARE(csv.size(), json_export::queueCsvHeader().size());
        QCOMPARE(csv.at(8), QStringLiteral("12.500"));

        r.source = QueueSource::Intent;
        r.action = QStringLiteral("create_ticket");
        r.taskId = QStringLiteral("task_1");
        o = json_export::queueRow(r);
        QVERIFY(o.value(QStringLiteral("biz_type")).isNull());
        QCOMPARE(o.value(QStringLiteral("action")).toString(), QStringLiteral("create_ticket"));
        QCOMPARE(o.value(QStringLiteral("task_id")).toString(), QStringLiteral("task_1"));
        QVERIFY(o.value(QStringLiteral("step_id")).isNull());
    }

    void keyDetailJsonKeepsRawText()
    {
        KeyDetail d;
        d.idemKey = QStringLiteral("k");
        RecordDetail r;
        r.idemKey = d.idemKey;
        r.statusText = QStringLiteral("SUCCESS");
        r.statusCode = 1;
        const QString raw = QStringLiteral("{\"amount\": 12345678901234567890, \"ratio\": 1.10}");
        r.resultSnapshot = raw;
        r.statusStored = QStringLiteral("1");
        r.statusStoredIsNumber = true;
        // "shard" is SQL NULL; "note" holds the text NULL.
        r.allColumns = {{QStringLiteral("id"), QStringLiteral("1")}, {QStringLiteral("shard"), QStringLiteral("NULL")},
                        {QStringLiteral("note"), QStringLiteral("NULL")}};
        r.nullColumns = {QStringLiteral("shard")};
        d.record = r;
        d.errors.insert(DbRole::Ticket, DbError{DbRole::Ticket, DbError::Kind::Connection, QStringLiteral("down"), {}});
        const QJsonObject o = QJsonDocument::fromJson(QJsonDocument(json_export::keyDetail(d)).toJson()).object();
        const QJsonObject rec = o.value(QStringLiteral("record")).toObject();
        QCOMPARE(rec.value(QStringLiteral("result_snapshot")).toString(), raw);
        QVERIFY(rec.value(QStringLiteral("version")).isNull());
        QVERIFY(rec.value(QStringLiteral("tenant")).isNull());
        QCOMPARE(rec.value(QStringLiteral("other_columns")).toObject(),
                 (QJsonObject{{QStringLiteral("shard"), QJsonValue(QJsonValue::Null)}, {QStringLiteral("note"), QStringLiteral("NULL")}}));
        QCOMPARE(rec.value(QStringLiteral("status_stored")), QJsonValue(1));
        // A text status is printed as the text stored, spaces and case included.
        r.statusStored = QStringLiteral("pending ");
        r.statusStoredIsNumber = false;
        QCOMPARE(json_export::record(r).value(QStringLiteral("status_stored")), QJsonValue(QStringLiteral("pending ")));
        r.statusStored.reset();
        QCOMPARE(json_export::record(r).value(QStringLiteral("status_stored")), QJsonValue(QJsonValue::Null));
        QCOMPARE(o.value(QStringLiteral("errors")).toObject().value(QStringLiteral("ticket")).toString(), QStringLiteral("down"));
        QCOMPARE(o.value(QStringLiteral("tickets")).toArray().size(), 0);
    }
};

QTEST_GUILESS_MAIN(TstCliOutput)
#include "tst_cli_output.moc"
