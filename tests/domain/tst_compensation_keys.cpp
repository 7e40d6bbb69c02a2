// Deterministic compensation keys (DESIGN.md §1): same target → same key whatever the body;
// distinct targets → distinct keys; long keys shortened to 64 characters without collisions.
#include "Compensation.h"
#include "CompensationConfig.h"

#include <QSet>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace triage;

class TestCompensationKeys : public QObject {
    Q_OBJECT
private slots:
    void shortKeyIsReadable()
    {
        QCOMPARE(compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("42"), QStringLiteral("task_1_step_2")),
                 QStringLiteral("comp:cancel_ticket:42:task_1_step_2"));
    }
    void sameTargetSameKey()
    {
        const QString src = QStringLiteral("ticket:create:acme:6f1c2b7e-0c55-4d0e-9c1e-2f5d9a1b3c4d");
        const QString a = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("102"), src);
        QCOMPARE(compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("102"), src), a);
        QCOMPARE(a.size(), kMaxCompensationKeyLength);
        // The body is not part of the key: two renderings of different bodies for the same
        // target share it (the key is computed from action, target and source key only).
        const QString b1 = renderCompensationTemplate(QStringLiteral("{\"note\":\"{idem_key}\"}"), QStringLiteral("102"), src,
                                                      QStringLiteral("acme"), false);
        const QString b2 = renderCompensationTemplate(QStringLiteral("{}"), QStringLiteral("102"), src, QStringLiteral("acme"), false);
        QVERIFY(b1 != b2);
        QCOMPARE(compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("102"), src), a);
    }
    void differentTargetsDifferentKeys()
    {
        const QString src = QStringLiteral("ticket:create:acme:6f1c2b7e-0c55-4d0e-9c1e-2f5d9a1b3c4d");
        QVERIFY(compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("101"), src)
                != compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("102"), src));
        QVERIFY(compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("1"), src)
                != compensationKey(QStringLiteral("refund"), QStringLiteral("1"), src));
        // The cut-off prefix is identical for these two: only the hash tells them apart.
        const QString longSrc = QString(60, QLatin1Char('x'));
        const QString k1 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("1"), longSrc + QLatin1Char('a'));
        const QString k2 = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("1"), longSrc + QLatin1Char('b'));
        QCOMPARE(k1.left(47), k2.left(47));
        QVERIFY(k1 != k2);
    }
    void uuidTicketIdKeptWhole()
    {
        // Business ids are opaque values end to end (DESIGN.md §10): a UUID ticket id is never
        // cut; the source key then lives in the SHA-256 only (exact values: hashlib.sha256).
        const QString uuid = QStringLiteral("9f1c2d3e-4b5a-4c6d-8e7f-0123456789ab");
        const QString src = QStringLiteral("ticket:create:acme:5b0e7c1a-2d4f-4e6a-9b8c-7d6e5f4a3b21");
        const QString k = compensationKey(QStringLiteral("cancel_ticket"), uuid, src);
        QCOMPARE(k, QStringLiteral("comp:cancel_ticket:9f1c2d3e-4b5a-4c6d-8e7f-0123456789ab:3ab76cc4"));
        QCOMPARE(k.size(), kMaxCompensationKeyLength);
        QCOMPARE(compensationKey(QStringLiteral("cancel_ticket"), uuid, src), k); // deterministic
        // Another ticket of the same key, or the same ticket of another key: other keys.
        QVERIFY(compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("9f1c2d3e-4b5a-4c6d-8e7f-0123456789ac"), src) != k);
        QVERIFY(compensationKey(QStringLiteral("cancel_ticket"), uuid, src + QLatin1Char('x')) != k);
        // A short UUID-shaped key stays readable as it is.
        QCOMPARE(compensationKey(QStringLiteral("void"), uuid, QStringLiteral("k1")),
                 QStringLiteral("comp:void:9f1c2d3e-4b5a-4c6d-8e7f-0123456789ab:k1"));
        // Action and id leave no room for 8 hex digits: the hash alone, never a cut id.
        QCOMPARE(compensationKey(QStringLiteral("cancel_duplicate_ticket"), uuid, src),
                 QStringLiteral("comp:sha256:422003e033fbd39736b7995a4fd5198536f0c1b82b660f598450"));
        // A short numeric id keeps the layout of earlier releases (existing compensations keep their keys).
        const QString longSrc = QString(60, QLatin1Char('x'));
        const QString old = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("42"), longSrc);
        QCOMPARE(old.left(48), QStringLiteral("comp:cancel_ticket:42:") + QString(25, QLatin1Char('x')) + QLatin1Char(':'));
        QCOMPARE(old.size(), 64);
    }
    void boundary()
    {
        // 63 characters stay as they are; 64 and more are hashed to exactly 64, so a hashed
        // key can never equal a readable one.
        const QString base = QStringLiteral("comp:a:1:");
        const QString src63 = QString(63 - base.size(), QLatin1Char('k'));
        QCOMPARE(compensationKey(QStringLiteral("a"), QStringLiteral("1"), src63), base + src63);
        const QString src64 = src63 + QLatin1Char('k');
        const QString k = compensationKey(QStringLiteral("a"), QStringLiteral("1"), src64);
        QCOMPARE(k.size(), 64);
        QVERIFY(k != base + src64);
        // Non-ASCII keys are never cut inside a character.
        const QString emoji = QString(20, QLatin1Char('x')) + QString::fromUtf8("😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀");
        const QString ke = compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("7"), emoji);
        QCOMPARE(ke.size(), 64);
        QVERIFY(!ke.toUtf8().contains("\xEF\xBF\xBD")); // no replacement character
    }
    void noCollisionsAcross100kTargets()
    {
        const QString src = QStringLiteral("refund:issue:zürich:9da3d8e1-2f51-4637-f445-368f32293d26-with-a-long-suffix");
        QSet<QString> keys;
        keys.reserve(100000);
        for (int i = 0; i < 100000; ++i) {
            const QString k = compensationKey(QStringLiteral("cancel_ticket"), QString::number(1000000 + i), src);
            QVERIFY(k.size() <= kMaxCompensationKeyLength);
            keys.insert(k);
        }
        QCOMPARE(keys.size(), 100000);
        // Deterministic: the same target again gives the same key.
        QVERIFY(keys.contains(compensationKey(QStringLiteral("cancel_ticket"), QStringLiteral("1000000"), src)));
    }
    void configFromIni()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.ini"));
        {
            QSettings s(path, QSettings::IniFormat);
            s.setValue(QStringLiteral("biz.ticket_create/upstream_base_url"), QStringLiteral("http://127.0.0.1:9"));
            s.setValue(QStringLiteral("biz.ticket_create/compensation_cancel_ticket_url"), QStringLiteral("/tickets/{ticket_id}/cancel"));
            s.setValue(QStringLiteral("biz.ticket_create/compensation_cancel_ticket_confirm_url"), QStringLiteral("/tickets/{ticket_id}"));
            s.setValue(QStringLiteral("biz.ticket_create/compensation_cancel_ticket_timeout_ms"), 1500);
            s.setValue(QStringLiteral("biz.ticket_create/compensation_cancel_ticket_honours_key"), QStringLiteral("false"));
            s.setValue(QStringLiteral("biz.pay/compensation_refund_url"), QStringLiteral("relative/without/base"));
        }
        QSettings s(path, QSettings::IniFormat);
        CompensationConfigs out;
        QString error;
        QVERIFY(!loadCompensationConfigs(s, &out, &error));
        QVERIFY2(error.contains(QLatin1String("[biz.pay] compensation_refund_url")), qPrintable(error));
        s.remove(QStringLiteral("biz.pay"));
        out.clear();
        QVERIFY2(loadCompensationConfigs(s, &out, &error), qPrintable(error));
        const CompensationActionConfig c = out.value(QStringLiteral("ticket_create")).value(QStringLiteral("cancel_ticket"));
        QCOMPARE(c.method, QByteArray("POST"));
        QCOMPARE(c.timeoutMs, 1500);
        QCOMPARE(c.honoursKey, false);
        QCOMPARE(c.confirmUrlTemplate, QStringLiteral("/tickets/{ticket_id}"));
        QString why;
        QCOMPARE(resolveCompensationUrl(c.baseUrl, renderCompensationTemplate(c.urlTemplate, QStringLiteral("5"), QStringLiteral("a:b"),
                                                                              QStringLiteral("t"), true),
                                        &why),
                 QStringLiteral("http://127.0.0.1:9/tickets/5/cancel"));
        QCOMPARE(renderCompensationTemplate(QStringLiteral("{\"k\":\"{idem_key}\"}"), {}, QStringLiteral("a\"b"), {}, false),
                 QStringLiteral("{\"k\":\"a\\\"b\"}"));
    }
};

QTEST_GUILESS_MAIN(TestCompensationKeys)
#include "tst_compensation_keys.moc"
