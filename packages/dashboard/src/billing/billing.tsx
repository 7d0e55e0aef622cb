import { useQuery } from '@tanstack/react-query';
import { api, dataOf, inOrgHeader } from '../api/client.ts';
import type { BillingSummary } from '../api/types.ts';
import { Facts, Loaded, Page } from '../components.tsx';
import { count, dollars } from '../format.ts';
import { useOrg } from '../shell.tsx';
import { ChargesChart } from './chart.tsx';

// Billing (spec 000, Billing): the balance and the credit, the charges by model and UTC day as the
// posting job charged them (each day rounded up to a cent once), and a chart of the last 30 days.

export function BillingPage() {
  const org = useOrg();
  const summary = useQuery({
    queryKey: ['orgs', org.id, 'billing'],
    queryFn: async () => (await dataOf(api.GET('/api/billing/summary', inOrgHeader(org.id)))).data,
  });
  return (
    <Page title="Billing">
      <Loaded query={summary} what="the billing summary">
        {(data) => <Summary summary={data} />}
      </Loaded>
    </Page>
  );
}

function Summary({ summary }: { summary: BillingSummary }) {
  const charges = [...summary.charges].sort(
    (a, b) => b.day.localeCompare(a.day) || a.model.localeCompare(b.model),
  );
  return (
    <>
      <Facts
        label="Balance"
        facts={[
          ['Balance', dollars(summary.balance_cents)],
          ['Credit granted', dollars(summary.credit_granted_cents)],
          ['Charged', dollars(summary.charged_cents)],
        ]}
      />
      <p className="hint">
        Input tokens are totalled per model and UTC day; each day is priced and rounded up to a cent once, by
        a job that posts what has not been charged yet. Output is free.
      </p>
      <section aria-labelledby="chart-title">
        <h2 id="chart-title">The last 30 days</h2>
        <ChargesChart charges={summary.charges} />
      </section>
      <section aria-labelledby="charges-title">
        <h2 id="charges-title">Charges by model and UTC day</h2>
        {charges.length === 0 ? (
          <p>Nothing charged yet.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">UTC day</th>
                  <th scope="col">Model</th>
                  <th scope="col" className="number">
                    Requests
                  </th>
                  <th scope="col" className="number">
                    Input tokens
                  </th>
                  <th scope="col" className="number">
                    Output tokens
                  </th>
                  <th scope="col" className="number">
                    Charged
                  </th>
                </tr>
              </thead>
              <tbody>
                {charges.map((charge) => (
                  <tr key={`${charge.day} ${charge.model}`}>
                    <th scope="row">{charge.day}</th>
                    <td>{charge.model}</td>
                    <td className="number">{count(charge.requests)}</td>
                    <td className="number">{count(charge.input_tokens)}</td>
                    <td className="number">{count(charge.output_tokens)}</td>
                    <td className="number">{dollars(charge.cents)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
