#pragma once

// Screenshots that are checked, not only written: the grabbed image must be the widget's
// size, drawn (not one flat colour) and read back from disk at the same size.

#include <QImage>
#include <QPixmap>
#include <QSet>
#include <QString>
#include <QTest>
#include <QWidget>

namespace triage::test {

/// Distinct colours of `image` on a 4-pixel grid (a blank or unpainted widget has 1 or 2).
inline int sampledColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 4)
        for (int x = 0; x < image.width(); x += 4)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

/// Grabs `widget` once pending layouts and the queued show() of newly added widgets
/// (message bars) have run, saves it as `path` and checks it: visible, the image is the
/// widget's size (times the device pixel ratio), at least `minColours` distinct colours
/// (text, badges and frames are drawn), and the file reads back with the same size.
/// Returns "" when all hold, else what failed. `grabbed` receives the image when given.
inline QString saveCheckedShot(QWidget *widget, const QString &path, QImage *grabbed = nullptr, int minColours = 8)
{
    QTest::qWait(200);
    if (!widget->isVisible())
        return QStringLiteral("%1: the widget is not visible").arg(path);
    const QPixmap pixmap = widget->grab();
    const QImage image = pixmap.toImage();
    const QSize expected = widget->size() * pixmap.devicePixelRatio();
    if (image.size() != expected)
        return QStringLiteral("%1: grabbed %2x%3, the widget is %4x%5")
            .arg(path)
            .arg(image.width())
            .arg(image.height())
            .arg(expected.width())
            .arg(expected.height());
    if (const int colours = sampledColours(image); colours < minColours)
        return QStringLiteral("%1: blank (%2 distinct colours)").arg(path).arg(colours);
    if (!image.save(path))
        return QStringLiteral("%1: cannot be written").arg(path);
    const QImage back(path);
    if (back.size() != image.size())
        return QStringLiteral("%1: reads back as %2x%3").arg(path).arg(back.width()).arg(back.height());
    if (grabbed)
        *grabbed = image;
    return {};
}

} // namespace triage::test

/// Fails the test with saveCheckedShot()'s message unless `check` (a QString) is empty.
#define TRIAGE_VERIFY_SHOT(check)                                                                                    \
    do {                                                                                                             \
        const QString shotError_ = (check);                                                                          \
        QVERIFY2(shotError_.isEmpty(), qPrintable(shotError_));                                                     \
    } while (false)
