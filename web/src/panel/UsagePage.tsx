// What the account has left, its packages, and a bar chart of the last six months' consumption
// (plain SVG; the same figures as text for screen readers).
import type { AccountPackages } from '../../../src/schemas/accounts.js';
import { api } from './api';
import { formatDay, usePanelI18n } from './panel-i18n';
import { DataTable } from './table';
import { ErrorBox, PageHeading, useLoad } from './widgets';

const KINDS = ['documents', 'verifications', 'messages', 'stamps'] as const;
const COLORS: Record<(typeof KINDS)[number], string> = {
  documents: '#1f4fd1',
  verifications: '#11693a',
  messages: '#8a4b00',
  stamps: '#6b2fa3',
};

type Usage = Awaited<ReturnType<typeof api.usage>>;

export function UsagePage() {
  const { t } = usePanelI18n();
  const { data, error, reload } = useLoad(() => api.usage(), []);
  if (!data) {
    return (
      <section>
        <PageHeading>{t.usageTitle}</PageHeading>
        <ErrorBox error={error} onDismiss={reload} />
        {!error && <p className="loading">{t.loading}</p>}
      </section>
    );
  }
  return (
    <section aria-labelledby="usage-title">
      <PageHeading>
        <span id="usage-title">{t.usageTitle}</span>
      </PageHeading>
      <div className="card">
        <h2 className="section-title">{t.remainingTitle}</h2>
        <dl className="remaining">
          {KINDS.map((k) => (
            <div key={k}>
              <dt>{t.kinds[k]}</dt>
              <dd data-testid={`remaining-${k}`}>{data.remaining[k] === null ? t.unlimited : data.remaining[k]}</dd>
            </div>
          ))}
        </dl>
      </div>
      <Packages packages={data.packages} />
      <UsageChart months={data.months} />
    </section>
  );
}

function Packages({ packages }: { packages: AccountPackages }) {
  const { t, lang } = usePanelI18n();
  return (
    <div className="card">
      <h2 className="section-title">{t.packagesTitle}</h2>
      <DataTable<AccountPackages[number]>
        rows={packages}
        empty={t.noPackages}
        rowKey={(p) => p.id}
        columns={[
          { label: t.colKind, cell: (p) => t.kinds[p.kind] ?? p.kind },
          {
            label: t.colUsed,
            cell: (p) => (
              <>
                {p.used} / {p.pieces}
              </>
            ),
          },
          {
            label: t.colValid,
            cell: (p) => (
              <>
                {formatDay(p.valid_from, lang)} – {formatDay(p.valid_to, lang)}
              </>
            ),
          },
        ]}
      />
    </div>
  );
}

const WIDTH = 600;
const HEIGHT = 220;

/** The months' consumption as bars, one group a month; the figures as the image's text. */
function UsageChart({ months }: { months: Usage['months'] }) {
  const { t, lang } = usePanelI18n();
  const month = (iso: string) =>
    new Intl.DateTimeFormat(lang === 'en' ? 'en-GB' : 'es-ES', { month: 'short', year: '2-digit', timeZone: 'UTC' }).format(new Date(iso));
  const max = Math.max(1, ...months.flatMap((m) => KINDS.map((k) => m.consumption[k].total)));
  const groupW = WIDTH / months.length;
  const summary = months
    .map((m) => `${month(m.from)}: ${KINDS.map((k) => `${t.kinds[k]} ${m.consumption[k].total}`).join(', ')}`)
    .join('; ');
  return (
    <figure className="card chart">
      <figcaption className="section-title">{t.chartTitle}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + 30}`} role="img" aria-label={t.chartSummary(summary)} data-testid="usage-chart">
        <line x1="0" y1={HEIGHT} x2={WIDTH} y2={HEIGHT} stroke="#8a92a3" />
        {months.map((m, i) => (
          <g key={m.from}>
            {KINDS.map((k, j) => (
              <Bar
                key={k}
                value={m.consumption[k].total}
                max={max}
                x={i * groupW + 8 + j * ((groupW - 16) / KINDS.length)}
                width={(groupW - 16) / KINDS.length}
                color={COLORS[k]}
                title={`${month(m.from)} · ${t.kinds[k]}`}
              />
            ))}
            <text x={i * groupW + groupW / 2} y={HEIGHT + 20} textAnchor="middle" fontSize="14" fill="#1b1f2a">
              {month(m.from)}
            </text>
          </g>
        ))}
      </svg>
      <ul className="legend">
        {KINDS.map((k) => (
          <li key={k}>
            <span className="swatch" style={{ background: COLORS[k] }} aria-hidden="true" /> {t.kinds[k]}
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** One bar, its figure above it when not zero. */
function Bar({
  value,
  max,
  x,
  width,
  color,
  title,
}: {
  value: number;
  max: number;
  x: number;
  width: number;
  color: string;
  title: string;
}) {
  const h = (value / max) * (HEIGHT - 20);
  return (
    <g>
      <rect x={x} y={HEIGHT - h} width={width - 2} height={h} fill={color}>
        <title>{`${title}: ${value}`}</title>
      </rect>
      {value > 0 && (
        <text x={x + (width - 2) / 2} y={HEIGHT - h - 4} textAnchor="middle" fontSize="12" fill="#1b1f2a">
          {value}
        </text>
      )}
    </g>
  );
}
