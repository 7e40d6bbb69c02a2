#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

namespace triage::test {

/// Writes `content` to the file `name` in `dir` (replacing it) and returns its path; "" when
/// the file cannot be written. For the INI files tests hand to --config or fromIniFile().
inline QString writeIni(const QTemporaryDir &dir, const QString &name, const QByteArray &content)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return {};
    f.write(content);
    return path;
}

} // namespace triage::test
