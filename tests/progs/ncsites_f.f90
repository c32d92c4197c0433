! ncsites_f: PnetCDF's Fortran API (nfmpi_*, in libpnetcdf.so, which calls
! the C ncmpi_* functions) for the site rule of siot findings
! (tests/integ/69-findings-sites.sh): every rank writes NW blocks of NI
! doubles of one variable with an independent nfmpi_put_vara_double,
! interleaved with the other ranks' in one shared file (ncsites_f.nc). The
! calls beneath are the program's calls at the lines marked SITE: below.
program ncsites_f
    implicit none
    include 'mpif.h'
    include 'pnetcdf.inc'
    integer, parameter :: NW = 60 ! puts per rank
    integer, parameter :: NI = 16 ! doubles per put
    integer :: err, rank, nprocs, ncid, dimid, varid, i, k
    double precision :: buf(NI)
    integer(kind=MPI_OFFSET_KIND) :: total, start(1), count(1)

    call MPI_Init(err) ! SITE:init
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, err)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, err)
    call check(nfmpi_create(MPI_COMM_WORLD, 'ncsites_f.nc', NF_CLOBBER, MPI_INFO_NULL, ncid), 'create') ! SITE:create
    total = int(NW, MPI_OFFSET_KIND) * nprocs * NI
    call check(nfmpi_def_dim(ncid, 'x', total, dimid), 'def_dim')
    call check(nfmpi_def_var(ncid, 'v', NF_DOUBLE, 1, (/dimid/), varid), 'def_var')
    call check(nfmpi_enddef(ncid), 'enddef') ! SITE:enddef
    call check(nfmpi_begin_indep_data(ncid), 'begin_indep_data') ! SITE:begin
    count(1) = NI
    do i = 0, NW - 1
        start(1) = (int(i, MPI_OFFSET_KIND) * nprocs + rank) * NI + 1 ! Fortran counts from 1
        do k = 1, NI
            buf(k) = i + rank + 0.01d0 * k
        end do
        call check(nfmpi_put_vara_double(ncid, varid, start, count, buf), 'put_vara_double') ! SITE:write
    end do
    call check(nfmpi_end_indep_data(ncid), 'end_indep_data') ! SITE:end
    call check(nfmpi_close(ncid), 'close') ! SITE:close
    call MPI_Finalize(err) ! SITE:fini
contains
    ! The same check as tests/progs/pnf.f90's, on purpose: each test program is
    ! one source file, read beside its test as the statement of what it calls.
    subroutine check(status, what)
        integer, intent(in) :: status
        character(len=*), intent(in) :: what
        integer :: ierr
        if (status /= NF_NOERR) then
            print *, what, ': ', nfmpi_strerror(status)
            call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
    end subroutine check
end program ncsites_f
