import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router';
import { admin, portal, whenSignedOut } from './api.ts';

const routes: RouteRecordRaw[] = [
  {
    path: '/dashboard/sign-in',
    name: 'sign-in',
    component: () => import('./pages/merchant/SignIn.vue'),
    meta: { title: 'Sign in' },
  },
  {
    path: '/dashboard',
    component: () => import('./pages/merchant/Layout.vue'),
    meta: { operator: true },
    children: [
      {
        path: '',
        name: 'programs',
        component: () => import('./pages/merchant/Programs.vue'),
        meta: { title: 'Programs' },
      },
      {
        path: 'programs/:id',
        name: 'overview',
        component: () => import('./pages/merchant/Overview.vue'),
        meta: { title: 'Overview' },
      },
      {
        path: 'programs/:id/settings',
        name: 'settings',
        component: () => import('./pages/merchant/Settings.vue'),
        meta: { title: 'Settings' },
      },
      {
        path: 'programs/:id/keys',
        name: 'keys',
        component: () => import('./pages/merchant/Keys.vue'),
        meta: { title: 'API keys' },
      },
      {
        path: 'programs/:id/partners',
        name: 'partners',
        component: () => import('./pages/merchant/Partners.vue'),
        meta: { title: 'Partners' },
      },
      {
        path: 'programs/:id/applications',
        name: 'applications',
        component: () => import('./pages/merchant/Applications.vue'),
        meta: { title: 'Applications' },
      },
      {
        path: 'programs/:id/email',
        name: 'email',
        component: () => import('./pages/merchant/EmailSettings.vue'),
        meta: { title: 'Email settings' },
      },
      {
        path: 'programs/:id/rewards',
        name: 'rewards',
        component: () => import('./pages/merchant/Rewards.vue'),
        meta: { title: 'Rewards' },
      },
      {
        path: 'programs/:id/providers',
        name: 'providers',
        component: () => import('./pages/merchant/Providers.vue'),
        meta: { title: 'Providers' },
      },
      {
        path: 'programs/:id/events',
        name: 'events',
        component: () => import('./pages/merchant/WebhookEvents.vue'),
        meta: { title: 'Webhook events' },
      },
      {
        path: 'programs/:id/outbound-events',
        name: 'outbound-events',
        component: () => import('./pages/merchant/OutboundEvents.vue'),
        meta: { title: 'Outbound events' },
      },
      {
        path: 'programs/:id/records/:kind?',
        name: 'records',
        component: () => import('./pages/merchant/Records.vue'),
        meta: { title: 'Records' },
      },
      {
        path: 'programs/:id/payouts',
        name: 'payouts',
        component: () => import('./pages/merchant/Payouts.vue'),
        meta: { title: 'Approvals and payouts' },
      },
      {
        path: 'programs/:id/payout-runs',
        name: 'payout-runs',
        component: () => import('./pages/merchant/PayoutRuns.vue'),
        meta: { title: 'Payout runs' },
      },
      {
        path: 'programs/:id/team',
        name: 'team',
        component: () => import('./pages/merchant/Team.vue'),
        meta: { title: 'Team' },
      },
      {
        path: 'programs/:id/audit',
        name: 'audit',
        component: () => import('./pages/merchant/AuditLog.vue'),
        meta: { title: 'Audit log', permission: 'audit' },
      },
      {
        path: 'programs/:id/import',
        name: 'import',
        component: () => import('./pages/merchant/Imports.vue'),
        meta: { title: 'Import', permission: 'manage' },
      },
      {
        path: 'programs/:id/notifications',
        name: 'notifications',
        component: () => import('./pages/merchant/Notifications.vue'),
        meta: { title: 'Notifications' },
      },
    ],
  },
  {
    path: '/dashboard/invite/:token',
    name: 'invite',
    component: () => import('./pages/merchant/Invite.vue'),
    meta: { title: 'Join the team' },
  },
  {
    path: '/portal/sign-in',
    name: 'portal-sign-in',
    component: () => import('./pages/portal/SignIn.vue'),
    meta: { title: 'Partner sign in' },
  },
  {
    path: '/portal/invite/:token',
    name: 'portal-invite',
    component: () => import('./pages/portal/Invite.vue'),
    meta: { title: 'Accept your invite' },
  },
  {
    path: '/portal',
    name: 'portal',
    component: () => import('./pages/portal/Home.vue'),
    meta: { partner: true, title: 'Partner portal' },
  },
  { path: '/:rest(.*)*', redirect: '/dashboard' },
];

export const router = createRouter({ history: createWebHistory('/'), routes });

router.beforeEach(async (to) => {
  if (to.matched.some((r) => r.meta.operator) && !admin.signedIn() && !(await admin.resume()))
    return { name: 'sign-in', query: { next: to.fullPath } };
  if (to.meta.partner && !portal.signedIn() && !(await portal.resume())) return { name: 'portal-sign-in' };
  return true;
});
router.afterEach((to) => {
  document.title = `${String(to.meta.title ?? 'Dashboard')} · ${to.path.startsWith('/portal') ? 'Partner portal' : 'Dashboard'}`;
});

whenSignedOut('operator', () => void router.push({ name: 'sign-in' }));
whenSignedOut('partner', () => void router.push({ name: 'portal-sign-in' }));
